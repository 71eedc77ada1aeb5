import Accounts
import AuthCore
import Foundation
import HTTPServer

/// InsForge's sign-in with a mailed code: `POST /api/auth/email/send-otp` `{email}` (202 and the same
/// words for every address) then `POST /api/auth/sessions` `{method: "otp", email, otp}`. A thin
/// adapter over `SignInCodes`, the seam's passwordless codes named by address: the sign-in page's
/// mail budgets (a held request answers 429, as InsForge's own cool-down does) and its code check.
struct InsForgeOTPRoutes: Sendable {
    let api: InsForgeAPI
    var env: PageEnvironment { api.env }

    func register(on router: inout Router) {
        api.on(&router, .post, "/api/auth/email/send-otp") { request, _ in try await send(request) }
    }

    private func send(_ request: Request) async throws -> Response {
        let email = try InsForgeAPI.email(try InsForgeAPI.object(request))
        try requireOffered()
        if case .held(let refusal) = try await SignInCodes(env: env.accounts, via: "insforge-api").request(
            email: email, allowSignUp: env.configuration.passwordlessSignUp, request: request)
        {
            throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
        }
        return try .json(
            Message(success: true, message: "If that address can sign in here, a sign-in code is on its way."), status: 202)
    }

    /// `POST /api/auth/sessions` with `method: "otp"`: a right code for the address's newest request
    /// signs in (and, with passwordless sign-up on, creates the account), as on the code page; an
    /// optional `name` goes on an account that has none yet. Refusals in InsForge's words for
    /// `AuthError`: an expired code says so, anything else is a wrong code.
    func signIn(_ request: Request, body: [String: JSONValue]) async throws -> Response {
        let email = try InsForgeAPI.email(body)
        guard let otp = InsForgeAPI.text(body, "otp"), otp.count == 6, otp.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw InsForgeAnswer(400, "INVALID_INPUT", "otp: OTP code must be a 6-digit numeric code")
        }
        let name = try InsForgeAPI.optionalText(body, "name")?.trimmingCharacters(in: .whitespacesAndNewlines)
        try requireOffered()
        let client = try InsForgeDelivery.clientType(request)
        // InsForge names an account made by its first code; a name already there stays.
        return try await api.answer(
            try await SignInCodes(env: env.accounts, via: "insforge-api").check(
                email: email, code: otp, name: name, request: request), client: client, request: request)
    }

    /// Sign-in by mailed code is offered here when it is on the sign-in page.
    /// The backend's capability; `--sign-in-methods` is the owners' to hold (`SignInMethodOff`, 403).
    private func requireOffered() throws {
        guard env.capabilities.contains(.emailOTP) else { throw AuthError.notSupported(.emailOTP) }
    }
}
