import AuthCore
import Foundation
import HTTPServer
import OAuth
import Secrets
import Store

/// The hosted sign-in page's hand-over to an app: after a sign-in there, a one-time code (single
/// use, short-lived, bound to the app's PKCE challenge) that the app trades for a session of its
/// own (InsForge's `oauth/exchange`), or — in an app's legacy mode, without PKCE — a session
/// straight away. Every hand-over is audited.
public struct AppCodes: Sendable {
    let env: Accounts
    let hasher: KeyedHash

    public init(env: Accounts, hasher: KeyedHash) { (self.env, self.hasher) = (env, hasher) }

    /// What an exchange found.
    public enum Redemption: Sendable {
        /// Unknown, expired or already used.
        case unknown
        /// The verifier does not match the code's challenge (the code is spent all the same).
        case wrongVerifier
        /// A good code: the app, user and client type it was issued for.
        case redeemed(RedeemedAppCode)
    }

    /// Refuses a hand-over from a browser that is already signed in when a superuser is viewing the
    /// pages as the person (`ImpersonationRefusal.appSignIn`): the app's session would be an
    /// ordinary refreshable one that outlives the impersonation and names no superuser. Asked before
    /// the app's page offers "Continue as …", and again when it is taken.
    public static func checkMayHandOver(_ signedIn: SignedIn) throws {
        guard signedIn.session.impersonator == nil else { throw ImpersonationRefusal.appSignIn }
    }

    /// A new code for `user`, for the app `appID`'s `callbackURL`, living `lifetime`.
    public func issue(
        for user: User, appID: String, codeChallenge: String, clientType: String, callbackURL: String,
        lifetime: TimeInterval, request: Request
    ) async throws -> String {
        let code = SecureRandom.token()
        let now = env.clock()
        try await env.database.insertAppCode(
            AppCodeRecord(
                codeHash: hasher.hex(code), appID: appID, userID: user.id, codeChallenge: codeChallenge,
                clientType: clientType, callbackURL: callbackURL, createdAt: now, expiresAt: now.addingTimeInterval(lifetime)))
        await env.audit.record(
            .appCodeIssued, actor: user.id.rawValue, subject: user.id.rawValue, request: request, data: ["app": .string(appID)])
        return code
    }

    /// Spends `code` on the first attempt, right or wrong (a guessed verifier gets one try, RFC 6749
    /// §4.1.2), then checks `verifier` against its challenge.
    public func redeem(_ code: String, verifier: String, request: Request) async throws -> Redemption {
        try await redeem(code, request: request) { _ in verifier }
    }

    /// `redeem`, with the verifier `verifierOf` the spent code's record gives (nil: none, refused).
    func redeem(
        _ code: String, request: Request, verifierOf: (AppCodeRecord) async throws -> String?
    ) async throws -> Redemption {
        guard let record = try await env.database.consumeAppCode(codeHash: hasher.hex(code), at: env.clock()) else {
            return .unknown
        }
        guard let verifier = try await verifierOf(record), PKCE.verify(verifier: verifier, challenge: record.codeChallenge)
        else {
            await env.audit.record(
                .appExchangeFailed, subject: record.userID.rawValue, request: request,
                data: ["app": .string(record.appID), "reason": "pkce"])
            return .wrongVerifier
        }
        return .redeemed(RedeemedAppCode(record))
    }

    /// The app's own session for a redeemed code's user (they signed in on Gatehouse's page).
    public func openSession(for code: RedeemedAppCode, request: Request) async throws -> AuthSession {
        let session = try await env.pageBackend.admin.openSession(for: code.userID)
        await env.audit.record(
            .appCodeExchanged, actor: session.user.id.rawValue, subject: session.user.id.rawValue, request: request,
            data: ["app": .string(code.appID)])
        return session
    }

    /// A session for `user` handed straight to an app in legacy mode (no PKCE, the tokens on the callback).
    public func openLegacySession(for user: User, appID: String, request: Request) async throws -> AuthSession {
        let session = try await env.pageBackend.admin.openSession(for: user.id)
        await env.audit.record(
            .appLegacyCallback, actor: user.id.rawValue, subject: user.id.rawValue, request: request,
            data: ["app": .string(appID)])
        return session
    }
}
