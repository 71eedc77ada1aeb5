import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The emailverification recipe's FDI routes: a verification mail for the signed-in account
/// (Gatehouse's, with a link whose token `user/email/verify` spends, as its own page does), the
/// token spent, and whether the address is proven. Each answer that has a session re-signs its
/// access token with the `st-ev` claim as it is now, as the SDK does.
struct FDIEmailVerificationRoutes: Sendable {
    let fdi: SuperTokensFDI
    var env: PageEnvironment { fdi.env }

    func register(on router: inout Router) {
        fdi.on(&router, .post, "/user/email/verify/token", mailToken)
        fdi.on(&router, .post, "/user/email/verify", verify)
        fdi.on(&router, .get, "/user/email/verify") { request in
            let session = try await fdi.sessions.verified(request)
            return try await fdi.sessions.refreshingClaims(
                session, body: SuperTokensFDI.status("OK", ["isVerified": .bool(session.user.emailVerified)]))
        }
    }

    private func mailToken(_ request: Request) async throws -> Response {
        let session = try await fdi.sessions.verified(request)
        guard !session.user.emailVerified else {
            return try await fdi.sessions.refreshingClaims(session, body: SuperTokensFDI.status("EMAIL_ALREADY_VERIFIED_ERROR"))
        }
        let requests = MailRequests(env: env.accounts, via: SuperTokensFDI.via)
        if case .held(let refusal) = try await requests.verification(email: session.user.email, withLink: true, request: request)
        {
            throw FDIRefusal.rateLimited(refusal.retryAfter)
        }
        return SuperTokensFDI.status("OK")
    }

    /// Spends a verification link's token; with a session, its `st-ev` is renewed in the answer.
    private func verify(_ request: Request) async throws -> Response {
        let body = try SuperTokensFDI.body(request)
        guard body["method"]?.stringValue == "token" else {
            throw FDIRefusal.badInput("Unsupported method for email verification")
        }
        let token = try SuperTokensFDI.text(body, "token")
        let session = try await fdi.sessions.optional(request)
        do {
            guard
                try await MailedCodeChecks(env: env.accounts, via: SuperTokensFDI.via).completeVerification(
                    linkToken: token, request: request
                ).verifiedUser != nil
            else { return SuperTokensFDI.status("EMAIL_VERIFICATION_INVALID_TOKEN_ERROR") }
        } catch AuthError.invalidCode, AuthError.codeExpired {
            return SuperTokensFDI.status("EMAIL_VERIFICATION_INVALID_TOKEN_ERROR")
        }
        guard let session,
            let current = await fdi.tokens.sessions.current(handle: fdi.tokens.sessions.handle(of: session.signedIn))
        else {
            return SuperTokensFDI.status("OK")
        }
        var renewed = session
        renewed.signedIn = current
        return try await fdi.sessions.refreshingClaims(renewed, body: SuperTokensFDI.status("OK"))
    }
}
