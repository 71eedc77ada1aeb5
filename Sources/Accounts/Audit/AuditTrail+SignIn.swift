import AuthCore
import HTTPServer

extension AuditTrail {
    /// Records `sign_in.completed` (with `data`, naming `via`) when `result` signed someone in, and
    /// passes it on: a second step owed is recorded when it completes (`SecondStepSignIn`), a
    /// refusal by the owner that judged it.
    func completed(_ result: SignInResult, _ data: [String: JSONValue], via: String?, request: Request) async -> SignInResult {
        if let user = result.session?.user.id.rawValue {
            await record(.signInCompleted, actor: user, subject: user, request: request, data: AuditTrail.data(data, via: via))
        }
        return result
    }
}
