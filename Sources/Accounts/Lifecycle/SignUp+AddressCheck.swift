import AuthCore
import Foundation
import HTTPServer

extension SignUp {
    /// Whether `email` has an account, asked before a sign-up by a way in whose contract answers it
    /// (SuperTokens' `emailpassword/email/exists`, which its sign-up form calls as the person
    /// types): each question takes one of the source's sign-ups (`Budget.signUps`), as the
    /// sign-up that would tell the same costs one. `.rateLimited` when the budget is spent.
    public func addressTaken(_ email: String, request: Request) async throws -> Bool {
        if let refusal = await env.budgets.take(.signUps(ip: policy.source(of: request, account: email))) {
            throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
        }
        return try await env.backend.admin.user(email: email.trimmingCharacters(in: .whitespacesAndNewlines)) != nil
    }
}
