import Accounts
import AuthCore
import Foundation
import HTTPServer
import TwoFactor

/// `auth/totp/…` on Gatehouse's authenticator app, which is a second step, never a sign-in alone:
/// `update` (with the refresh JWT) gives a signed-in person a key, `verify` with the refresh JWT
/// turns it on with a first code, and `verify` without one completes a sign-in that stopped at its
/// second step (a password, code or link sign-in answered 403 for the account). `signup` — an
/// account whose only factor is the app — is not offered.
struct DescopeTOTPRoutes: Sendable {
    let api: DescopeAPI
    private var accounts: Accounts { api.env.accounts }

    func register(on router: inout Router) {
        api.on(&router, .post, "/v1/auth/totp/signup") { _ in
            throw DescopeAnswer(
                501, DescopeCode.badRequest, "Not supported",
                "An authenticator app is a second step here: sign up another way, then add it with totp/update")
        }
        api.on(&router, .post, "/v1/auth/totp/update") { call in
            let signedIn = try await api.holder(call).signedIn
            try api.requireOwnLoginID(call, signedIn)
            let enrollment = try await AuthenticatorApp(env: accounts).beginEnrollment(signedIn, policy: .descopeAPI)
            let image = try QRCodePNG.png(for: enrollment.provisioningURL)
            return try .json(
                TOTPKey(
                    provisioningURL: enrollment.provisioningURL, image: Data(image).base64EncodedString(),
                    key: enrollment.secret))
        }
        api.on(&router, .post, "/v1/auth/totp/verify") { call in
            let (email, code) = (try call.loginID(), try call.required("code"))
            if call.refreshJwt != nil { return try await confirm(code: code, call: call) }
            switch try await SecondStepSignIn(env: accounts, via: DescopeAPI.via).attempt(
                email: email, factor: .totp(code: code), request: call.request)
            {
            case .completed(let session): return try await api.signedIn(session, amr: ["mfa", "totp"], call: call)
            case .throttled(let wait):
                throw DescopeAnswer(429, DescopeCode.tooManyOTPAttempts, "Too many OTP attempts", "Try again in \(wait) seconds")
            case .wrongCode, .expired, .wrongMethod: throw AuthError.invalidCode
            }
        }
    }

    /// The first code of a pending key turns the app on; the answer is a new session JWT beside
    /// the same refresh JWT (recovery codes are shown on the account pages).
    private func confirm(code: String, call: DescopeAPI.Call) async throws -> Response {
        let holder = try await api.holder(call)
        try api.requireOwnLoginID(call, holder.signedIn)
        _ = try await AuthenticatorApp(env: accounts).confirmEnrollment(
            code: code, holder.signedIn, policy: .descopeAPI, request: call.request)
        let user = holder.signedIn.user
        let amr = holder.amr.contains("totp") ? holder.amr : holder.amr + ["totp"]
        return try api.jwtResponse(
            session: try api.tokens.sessionJwt(
                user: user.id.rawValue, project: call.project, amr: amr, refreshExpiresAt: holder.expiresAt),
            refresh: call.refreshJwt ?? "", expiresAt: holder.expiresAt, user: DescopeUser(user, amr: amr), firstSeen: false)
    }
}
