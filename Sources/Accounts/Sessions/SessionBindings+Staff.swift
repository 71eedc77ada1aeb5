import Foundation
import HTTPServer
import Secrets
import Store

/// Superusers' rows of the one session store: held by `superuser_id` (never a person), their tokens
/// hashed under the kind of their door as every row's are, so a person's token never opens a
/// staff door nor a token of one staff door another. They bind no backend session (superusers are
/// Gatehouse's own) and live by `SessionWindows` the door names.
extension SessionBindings {
    /// The superuser behind `token` of `kind`, or nil when it is unknown, revoked, expired, idle
    /// past `windows`, or its superuser is gone.
    func staff(token: String, kind: SessionKind, windows: SessionWindows) async -> Staff? {
        let now = clock()
        do {
            guard
                let found = try await database.activeConsoleSession(
                    tokenHash: hash(token, kind), now: now, idleTimeout: windows.idleTimeout)
            else { return nil }
            if now.timeIntervalSince(found.session.lastUsedAt) > Self.touchInterval {
                try await database.touchSession(id: found.session.id, at: now)
            }
            return Staff(session: SessionRow(found.session), superuser: StaffMember(found.superuser))
        } catch {
            logger.error("staff session lookup failed", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// A new row for `superuser` of `kind`, ending after `windows.lifetime`; its token (shown once).
    func bind(_ superuser: StaffMember, kind: SessionKind, windows: SessionWindows, request: Request) async throws
        -> (token: String, expiresAt: Date)
    {
        let now = clock()
        let token = SecureRandom.token()
        let expiresAt = now.addingTimeInterval(windows.lifetime)
        try await database.createConsoleSession(
            tokenHash: hash(token, kind), superuserID: superuser.id, userAgent: Self.userAgent(request),
            ip: request.remoteAddress, at: now, expiresAt: expiresAt)
        return (token, expiresAt)
    }

    /// A new token of `kind` for `staff`'s row, begun now and ending when the old one would have;
    /// the old token stops working. Nil when the row ended meanwhile.
    func renew(_ staff: Staff, kind: SessionKind, request: Request) async throws -> String? {
        let token = SecureRandom.token()
        guard
            try await database.renewConsoleSession(
                id: staff.session.id, tokenHash: hash(token, kind), userAgent: Self.userAgent(request),
                ip: request.remoteAddress, at: clock())
        else { return nil }
        return token
    }

    /// Ends `staff`'s row.
    func revoke(_ staff: Staff) async throws {
        try await database.revokeSession(id: staff.session.id, at: clock())
    }
}
