import Accounts
import AuthCore
import Foundation
import HTTPServer
import TwoFactor

/// `auth/totp/…` on Gatehouse's authenticator app: `signup` makes an account whose only way in is
/// the app and answers its key; `update` (with the refresh JWT) gives a signed-in person a key,
/// `verify` with the refresh JWT turns it on with a first code, and `verify` without one completes
/// a sign-in that stopped at its second step (a password, code or link sign-in answered 403 for the
/// account) or, with none pending, signs in an account whose only way in is the app
/// (`AuthenticatorAppSignIn`). An account with a password keeps it as a second step.
struct DescopeTOTPRoutes: Sendable {
    let api: DescopeAPI
    private var accounts: Accounts { api.env.accounts }

    func register(on router: inout Router) {
        api.on(&router, .post, "/v1/auth/totp/signup") { call in
            let email = try call.loginID()
            let enrollment = try await AuthenticatorAppSignIn(env: accounts, via: DescopeAPI.via).signUp(
                email: email, profile: call.userProfile(), policy: .descopeAPI, request: call.request)
            return try key(enrollment)
        }
        api.on(&router, .post, "/v1/auth/totp/update") { call in
            let signedIn = try await api.holder(call).signedIn
            try api.requireOwnLoginID(call, signedIn)
            return try key(try await AuthenticatorApp(env: accounts).beginEnrollment(signedIn, policy: .descopeAPI))
        }
        api.on(&router, .post, "/v1/auth/totp/verify") { call in
            let (email, code) = (try call.loginID(), try call.required("code"))
            if call.refreshJwt != nil { return try await confirm(code: code, call: call) }
            let steps = SecondStepSignIn(env: accounts, via: DescopeAPI.via)
            let pending = try await steps.isPending(email: email)
            let outcome =
                pending
                ? try await steps.attempt(email: email, factor: .totp(code: code), request: call.request)
                : try await AuthenticatorAppSignIn(env: accounts, via: DescopeAPI.via).signIn(
                    email: email, code: code, request: call.request)
            if case .refused(.throttled(let wait)) = outcome { throw DescopeAnswer.tooManyOTPAttempts(wait) }
            return try await api.answer(outcome, amr: pending ? ["mfa", "totp"] : ["totp"], call: call)
        }
    }

    /// `{provisioningURL, image, key}`, the image a base64 PNG of the URL's QR code.
    private func key(_ enrollment: TOTPEnrollment) throws -> Response {
        let image = try QRCodePNG.png(for: enrollment.provisioningURL)
        return try .json(
            TOTPKey(
                provisioningURL: enrollment.provisioningURL, image: Data(image).base64EncodedString(), key: enrollment.secret))
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
