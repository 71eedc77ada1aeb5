import AuthCore
import Foundation
import HTTPServer

/// The second step of a PocketBase-API sign-in, on the seam's `completeMFA` (the operation the
/// `/auth/mfa` page uses). PocketBase completes an `mfaId` with a second, different method; the
/// SDK call that carries one is `authWithOTP(otpId, password, {mfaId})`, so that is the shape:
///
/// - an account whose second step is its authenticator app (the embedded backend's TOTP) sends the
///   `mfaId` as `otpId` too, and the 6-digit authenticator code, or one recovery code, as
///   `password`;
/// - any other `otpId` is a mailed code (`request-otp`), for backends whose second step it is
///   (PocketBase's own MFA). The embedded backend refuses it: a mailed code must never stand in
///   for an account's authenticator app, or whoever reads the mailbox passes both steps.
///
/// Answers in PocketBase's words: a wrong or reused code is "Invalid or expired OTP."; an unknown,
/// expired, spent or out-of-tries `mfaId` is "Invalid or expired MFA session."
struct PocketBaseMFA: Sendable {
    let api: PocketBaseAPI
    var env: PageEnvironment { api.env }

    func complete(_ request: Request, mfaID: String, otpID: String, password: String) async throws -> Response {
        let typed = password.trimmingCharacters(in: .whitespacesAndNewlines)
        let factor: SecondFactor
        let method: String
        if otpID != mfaID {
            (factor, method) = (.emailOTP(otpID: otpID, code: typed), "email_code")
        } else if typed.count == 6, typed.allSatisfy({ $0.isASCII && $0.isNumber }) {
            (factor, method) = (.totp(code: typed), "totp")
        } else {
            guard typed.count <= 64 else { throw Self.wrongCode }
            (factor, method) = (.recoveryCode(typed), "recovery_code")
        }
        if await env.limiter.take("mfa:\(request.remoteAddress)", Throttle.secondStepPerIP, now: env.clock()) != nil {
            await env.audit.record(
                .mfaFailed, request: request, data: ["method": .string(method), "reason": "rate_limited", "via": "pocketbase-api"]
            )
            throw PocketBaseAnswer(429, PocketBaseError.standardMessage(for: 429))
        }
        let session: AuthSession
        do {
            session = try await env.pageBackend.completeMFA(challengeID: mfaID, with: factor)
        } catch AuthError.invalidCode, AuthError.invalidCredentials {
            await env.audit.record(
                .mfaFailed, request: request, data: ["method": .string(method), "reason": "invalid_code", "via": "pocketbase-api"]
            )
            throw Self.wrongCode
        } catch AuthError.codeExpired {
            await env.audit.record(
                .mfaFailed, request: request, data: ["method": .string(method), "reason": "expired", "via": "pocketbase-api"])
            throw PocketBaseAnswer(400, "Invalid or expired MFA session.")
        } catch AuthError.notSupported(.emailOTP) {
            await env.audit.record(
                .mfaFailed, request: request, data: ["method": .string(method), "reason": "wrong_method", "via": "pocketbase-api"]
            )
            throw PocketBaseAnswer(
                400,
                "This account's second step is its authenticator app: send the mfaId as otpId and the authenticator "
                    + "or a recovery code as password.")
        }
        let user = session.user
        await env.audit.record(
            .mfaCompleted, actor: user.id.rawValue, subject: user.id.rawValue, request: request,
            data: ["method": .string(method), "via": "pocketbase-api"])
        await env.audit.record(
            .signInCompleted, actor: user.id.rawValue, subject: user.id.rawValue, request: request,
            data: ["secondStep": .string(method), "via": "pocketbase-api"])
        return try await PocketBaseAuthRoutes(api: api).authResponse(session, request: request)
    }

    private static var wrongCode: PocketBaseAnswer { PocketBaseAnswer(400, "Invalid or expired OTP.") }
}
