import AuthCore
import Foundation
import Store

/// The account's own sessions on the embedded backend: browser sessions (with their device) and
/// API sessions, but not the sessions that back a browser session (their browser session stands
/// for them). `current` is the session asked with.
extension LocalBackend {
    public func sessions(session: AuthSession) async throws -> [SessionInfo] {
        let current = try await activeRecord(for: session)
        let now = clock()
        return try await database.sessions(userID: current.userID)
            .filter { $0.revokedAt == nil && $0.expiresAt > now }
            .map { record in
                SessionInfo(
                    id: String(record.id), userAgent: record.userAgent, ip: record.ip, createdAt: record.createdAt,
                    lastUsedAt: record.lastUsedAt, current: record.id == current.id)
            }
    }

    public func signOut(sessionID: String, session: AuthSession) async throws {
        let current = try await activeRecord(for: session)
        guard let id = Int64(sessionID), try await database.revokeSession(id: id, ofUser: current.userID, at: clock())
        else { throw AuthError.server(status: 404, code: "session_not_found", message: "There is no such session.") }
    }

    public func signOutEverywhere(keepingCurrent: Bool, session: AuthSession) async throws {
        let current = try await activeRecord(for: session)
        if keepingCurrent {
            try await database.revokeSessions(userID: current.userID, keeping: current.id, at: clock())
        } else {
            try await database.revokeSessions(userID: current.userID, at: clock())
        }
        logger.info("signed out everywhere", metadata: ["user": "\(current.userID)", "keptCurrent": "\(keepingCurrent)"])
    }
}
