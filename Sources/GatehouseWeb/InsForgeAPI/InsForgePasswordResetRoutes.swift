import Accounts
import AuthCore
import Foundation
import HTTPServer

/// InsForge's password reset: by link, or by a mailed code traded for a reset token
/// (`exchange-reset-password-token`), then `reset-password` with that token as `otp`. The request is
/// `MailRequests` (every address gets the same answer; a held request answers 429, as InsForge's
/// own cool-down does) and each check `MailedCodeChecks`, as on the pages.
struct InsForgePasswordResetRoutes: Sendable {
    let api: InsForgeAPI
    var env: PageEnvironment { api.env }

    func register(on router: inout Router) {
        api.on(&router, .post, "/api/auth/email/send-reset-password") { request, _ in
            let email = try InsForgeAPI.email(try InsForgeAPI.object(request))
            if case .held(let refusal) = try await MailRequests(env: env.accounts, via: "insforge-api").passwordReset(
                email: email, request: request)
            {
                throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
            }
            return try .json(
                Message(success: true, message: "If that address has an account, a reset email is on its way."), status: 202)
        }
        api.on(&router, .post, "/api/auth/email/exchange-reset-password-token") { request, _ in
            let body = try InsForgeAPI.object(request)
            guard let email = InsForgeAPI.text(body, "email"), let code = InsForgeAPI.text(body, "code") else {
                throw InsForgeAnswer(400, "INVALID_INPUT", "email and code: send the address and the mailed code.")
            }
            let token = try await MailedCodeChecks(env: env.accounts).exchangeResetCode(
                email: email, code: code, request: request)
            return try .json(ResetToken(token: token))
        }
        api.on(&router, .post, "/api/auth/email/reset-password") { request, _ in
            let body = try InsForgeAPI.object(request)
            guard let token = InsForgeAPI.text(body, "otp") ?? InsForgeAPI.text(body, "token"),
                let password = InsForgeAPI.text(body, "newPassword")
            else {
                throw InsForgeAnswer(400, "INVALID_INPUT", "otp and newPassword: send the reset token and the new password.")
            }
            _ = try await MailedCodeChecks(env: env.accounts, via: "insforge-api").completeReset(
                token: token, newPassword: password, request: request)
            return try .json(Message(success: true, message: "Password reset. Sign in with the new password."))
        }
        api.on(&router, .get, "/api/auth/email/reset-password-link") { request, _ in
            // Gatehouse's own new-password page takes the link (InsForge redirects to the app's).
            .redirect(to: URLQuery.path("/auth/reset-password", [("token", try request.query.single("token") ?? "")]))
        }
    }
}

private struct ResetToken: Encodable {
    var token: String
}
