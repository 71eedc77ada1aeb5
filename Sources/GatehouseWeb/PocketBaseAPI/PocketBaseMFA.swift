import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The second step of a PocketBase-API sign-in: PocketBase's shape for `SecondStepSignIn` (the
/// operation the `/auth/mfa` page uses, with its throttle and audit). PocketBase completes an
/// `mfaId` with a second, different method; the SDK call that carries one is
/// `authWithOTP(otpId, password, {mfaId})`, so that is the shape:
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
        if otpID != mfaID {
            factor = .emailOTP(otpID: otpID, code: typed)
        } else if typed.count == 6, typed.allSatisfy({ $0.isASCII && $0.isNumber }) {
            factor = .totp(code: typed)
        } else {
            guard typed.count <= 64 else { throw Self.wrongCode }
            factor = .recoveryCode(typed)
        }
        return try await PocketBaseAuthRoutes(api: api).answer(
            try await SecondStepSignIn(env: env.accounts, via: "pocketbase-api").attempt(
                challengeID: mfaID, factor: factor, request: request), request: request, refusal: Self.words)
    }

    /// PocketBase's words for a refused second step.
    private static func words(_ refusal: SignInRefusal) -> any Error {
        switch refusal {
        case .expired: PocketBaseAnswer(400, "Invalid or expired MFA session.")
        case .wrongMethod:
            PocketBaseAnswer(
                400,
                "This account's second step is its authenticator app: send the mfaId as otpId and the authenticator "
                    + "or a recovery code as password.")
        case .throttled: refusal.error
        default: wrongCode
        }
    }

    /// A superuser's second step (`StaffSignIn`), as for people: the `mfaId` from
    /// `_superusers/auth-with-password` and the authenticator code, or one recovery code, as
    /// `password`. Superusers have no mailed codes.
    func completeSuperuser(_ request: Request, mfaID: String, password: String) async throws -> Response {
        let typed = password.trimmingCharacters(in: .whitespacesAndNewlines)
        guard typed.count <= 64 else { throw Self.wrongCode }
        switch try await env.staffSignIn.completeSecondStep(pending: mfaID, factor: StaffSignIn.factor(typed)) {
        case .signedIn(let superuser, let method):
            return try await PocketBaseAuthRoutes(api: api).superuserResponse(superuser, request: request, secondStep: method)
        case .wrong:
            await env.staffSignIn.recordFailure("wrong_code", via: "pocketbase-api", request: request)
            throw Self.wrongCode
        case .dead:
            throw PocketBaseAnswer(400, "Invalid or expired MFA session.")
        }
    }

    private static var wrongCode: PocketBaseAnswer { PocketBaseAnswer(400, "Invalid or expired OTP.") }
}
