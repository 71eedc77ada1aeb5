import AuthCore
import Foundation
import HTTPServer
import Store

/// A test suite's hold on one account's time (`POST /_/api/test/clock`, `…/clock/expire-now`):
/// moves the account's clock (`AccountClocks`) ahead, so every expiry Gatehouse decides for it
/// comes as it would after that wait, or ends one kind of its credentials at once. No other
/// account is touched; each act is audited with the caller.
public struct AccountClockControl: Sendable {
    let env: Accounts
    let caller: TestControlCaller

    /// The furthest one call moves a clock: ten years, far past every lifetime Gatehouse keeps.
    static let maximumStep: TimeInterval = 10 * 365 * 24 * 3600

    /// What `expireNow` can end.
    public enum Kind: String, CaseIterable, Sendable {
        /// Every session of the account, every way in: page cookies, API tokens and refresh tokens.
        case sessions
    }

    public init(env: Accounts, caller: TestControlCaller) { (self.env, self.caller) = (env, caller) }

    /// The account at `email`, else the one with id `userID`; `.userNotFound` for none,
    /// `.validation` when neither is given.
    public func account(email: String?, userID: String?) async throws -> User {
        if let email, !email.isEmpty {
            guard let user = try await env.backend.admin.user(email: email) else { throw AuthError.userNotFound }
            return user
        }
        guard let userID, !userID.isEmpty else {
            throw AuthError.validation([FieldError(field: "email", message: "Name the account by email or userId.")])
        }
        return try await env.backend.admin.user(UserID(userID))
    }

    /// Moves `user`'s clock `seconds` ahead (more than 0, at most `maximumStep`); the account's new
    /// offset from the server's clock and its time now.
    public func advance(_ user: User, seconds: Double, request: Request) async throws -> (offset: TimeInterval, now: Date) {
        guard seconds.isFinite, seconds > 0, seconds <= Self.maximumStep else {
            throw AuthError.validation([
                FieldError(field: "seconds", message: "Send a number of seconds above 0 and at most \(Int(Self.maximumStep)).")
            ])
        }
        let offset = try await env.clocks.advance(user.id, by: seconds)
        await env.audit.record(
            .testClockAdvanced, actor: caller.actor, subject: user.id.rawValue, request: request,
            data: caller.auditData(["seconds": .number(seconds), "offset": .number(offset)]))
        return (offset, env.clocks.now(for: user.id))
    }

    /// Ends `user`'s credentials of `kind` now; how many were live.
    public func expireNow(_ user: User, kind: Kind, request: Request) async throws -> Int {
        let ended: Int
        switch kind {
        case .sessions:
            ended = try await env.database.revokeSessions(userID: user.id, at: env.clocks.now(for: user.id))
        }
        await env.audit.record(
            .testExpiredNow, actor: caller.actor, subject: user.id.rawValue, request: request,
            data: caller.auditData(["kind": .string(kind.rawValue), "count": .number(Double(ended))]))
        return ended
    }
}
