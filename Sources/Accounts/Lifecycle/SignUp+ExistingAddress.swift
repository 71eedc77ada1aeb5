import AuthCore
import HTTPServer

extension SignUp {
    /// A sign-up refused because the address has an account, on a way in whose contract says so
    /// (SuperTokens' core answers `EMAIL_ALREADY_EXISTS_ERROR` to the app's backend): recorded as
    /// refused. Nothing was mailed, so no cool-down starts (unlike `refusedTakenAddress`).
    public func refusedExistingAddress(_ email: String, request: Request) async {
        await env.audit.record(
            .signUpRefused, request: request,
            data: AuditTrail.data(["email": .string(email), "reason": "email_exists"], via: via))
    }
}
