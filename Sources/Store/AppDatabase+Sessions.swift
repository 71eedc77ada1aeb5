import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// Stores a new session; `lastUsedAt` starts at `createdAt`.
    public func createSession(_ new: NewSession) async throws -> SessionRecord {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO sessions (token_hash, refresh_token_hash, user_id, user_agent, ip,
                                          created_at, last_used_at, expires_at, impersonator,
                                          impersonation_reason, impersonation_ticket)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    new.tokenHash, new.refreshTokenHash, new.userID.rawValue, new.userAgent, new.ip,
                    new.createdAt.storedText, new.createdAt.storedText, new.expiresAt.storedText, new.impersonator,
                    new.impersonationReason, new.impersonationTicket
                ])
            return SessionRecord(
                id: db.lastInsertedRowID, tokenHash: new.tokenHash, refreshTokenHash: new.refreshTokenHash,
                userID: new.userID, userAgent: new.userAgent, ip: new.ip, createdAt: new.createdAt,
                lastUsedAt: new.createdAt, expiresAt: new.expiresAt, revokedAt: nil, impersonator: new.impersonator,
                impersonationReason: new.impersonationReason, impersonationTicket: new.impersonationTicket)
        }
    }

    /// The session whose token hashes to `tokenHash`, if it is neither revoked nor expired at `now`
    /// and, when `idleTimeout` is given, was used within that many seconds (`last_used_at`).
    public func activeSession(tokenHash: String, now: Date, idleTimeout: TimeInterval? = nil) async throws -> SessionRecord? {
        try hotReads.read { connection in
            try connection.first(
                Self.activeSessionSQL, Self.activeSessionArguments(tokenHash, now, idleTimeout), SessionRecord.init)
        }
    }

    /// `activeSession`'s rule inside a transaction (`db`).
    static func activeSession(_ db: Database, tokenHash: String, now: Date, idleTimeout: TimeInterval?) throws
        -> SessionRecord?
    {
        let arguments = activeSessionArguments(tokenHash, now, idleTimeout).map(\.databaseValue)
        return try SessionRecord.fetchOne(db, sql: activeSessionSQL, arguments: StatementArguments(arguments))
    }

    /// A person's live session: not revoked, not expired at `?2`, last used after `?3` (both
    /// dates bound as stored text and compared as text; see `HotArgument.date`). A superuser's
    /// row (`user_id` NULL) is never one, whatever its token.
    static let activeSessionSQL = """
        SELECT * FROM sessions
        WHERE token_hash = ?1 AND user_id IS NOT NULL AND revoked_at IS NULL
          AND expires_at > ?2
          AND last_used_at > ?3
        """

    /// `activeSessionSQL`'s account.
    private static let activeSessionUserSQL = activeSessionAccount(adding: "u.*")

    /// `activeSessionSQL`'s account id and disabled flag.
    private static let activeSessionUserIDSQL = activeSessionAccount()

    /// The owner of `activeSessionSQL`'s session as `SessionOwned` reads it (the account `u`'s id and
    /// disabled flag), and `columns` of `u` and of the tables `joining` adds.
    static func activeSessionAccount(adding columns: String = "", joining: String = "") -> String {
        let selected = columns.isEmpty ? SessionOwned<Void>.columns : "\(SessionOwned<Void>.columns), \(columns)"
        return "SELECT \(selected) FROM (\(activeSessionSQL)) s JOIN users u ON u.id = s.user_id \(joining)"
    }

    /// The token hash, `now`, and the idle rule's earliest last use (any, without one).
    static func activeSessionArguments(_ tokenHash: String, _ now: Date, _ idleTimeout: TimeInterval?) -> [HotArgument] {
        [.text(tokenHash), .date(now), .date(idleTimeout.map { now.addingTimeInterval(-$0) } ?? StoredDate.earliest)]
    }

    /// The account behind a live session, in one statement (the embedded backend's every
    /// authenticated call that needs the whole account).
    public func activeSessionUser(tokenHash: String, now: Date) async throws -> SessionOwned<UserRecord>? {
        try hotReads.read { connection in
            try connection.first(Self.activeSessionUserSQL, Self.activeSessionArguments(tokenHash, now, nil)) { row in
                try SessionOwned(row, try UserRecord(columns: row))
            }
        }
    }

    /// The id of the account behind a live session and whether it is disabled: what a check of
    /// who is calling needs, without decoding the account (its profile is JSON).
    public func activeSessionUserID(tokenHash: String, now: Date) async throws -> SessionOwned<Void>? {
        try hotReads.read { connection in
            try connection.first(Self.activeSessionUserIDSQL, Self.activeSessionArguments(tokenHash, now, nil)) { row in
                try SessionOwned(row, ())
            }
        }
    }

    public func touchSession(id: Int64, at now: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE sessions SET last_used_at = ? WHERE id = ?", arguments: [now.storedText, id])
        }
    }

    /// Revokes one session; revoking it again keeps the first revocation time.
    public func revokeSession(id: Int64, at now: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                arguments: [now.storedText, id])
        }
    }

    /// Moves a live session's end to `expiresAt` (a PocketBase-API token renewed by `auth-refresh`).
    public func extendSession(id: Int64, until expiresAt: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE sessions SET expires_at = max(expires_at, ?) WHERE id = ? AND revoked_at IS NULL",
                arguments: [expiresAt.storedText, id])
        }
    }

    /// Revokes one of `userID`'s sessions; false when it is not theirs or was already revoked.
    public func revokeSession(id: Int64, ofUser userID: UserID, at now: Date) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE sessions SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL",
                arguments: [now.storedText, id, userID.rawValue])
            return db.changesCount > 0
        }
    }

    /// Revokes every unrevoked session of `userID` but `keeping` and the ones backing browser
    /// sessions (each ends with its browser session); returns how many.
    @discardableResult
    public func revokeSessions(userID: UserID, keeping kept: Int64, at now: Date) async throws -> Int {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE sessions SET revoked_at = ?
                    WHERE user_id = ? AND id != ? AND revoked_at IS NULL AND user_agent IS NOT ?
                    """,
                arguments: [now.storedText, userID.rawValue, kept, NewSession.browserBackingUserAgent])
            return db.changesCount
        }
    }

    /// Revokes every live impersonation session `impersonator` started (browser sessions and API
    /// tokens alike) and returns them, so each can be audited as ended.
    public func revokeImpersonations(by impersonator: String, at now: Date) async throws -> [SessionRecord] {
        try await pool.write { db in
            let live = try SessionRecord.fetchAll(
                db,
                sql: "SELECT * FROM sessions WHERE impersonator = ? AND revoked_at IS NULL AND expires_at > ?",
                arguments: [impersonator, now.storedText])
            try db.execute(
                sql: "UPDATE sessions SET revoked_at = ? WHERE impersonator = ? AND revoked_at IS NULL AND expires_at > ?",
                arguments: [now.storedText, impersonator, now.storedText])
            return live
        }
    }

    /// Revokes every unrevoked session of a user and returns how many it revoked.
    @discardableResult
    public func revokeSessions(userID: UserID, at now: Date) async throws -> Int {
        try await pool.write { db in try Self.revokeSessions(of: userID, at: now, in: db) }
    }

    /// Revokes every unrevoked session of a user inside the caller's transaction; returns how many.
    @discardableResult
    static func revokeSessions(of userID: UserID, at now: Date, in db: Database) throws -> Int {
        try db.execute(
            sql: "UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL",
            arguments: [now.storedText, userID.rawValue])
        return db.changesCount
    }

    /// Where a user is or was signed in — browser sessions and app tokens, revoked and expired ones
    /// included, newest first. Sessions backing a browser session (`NewSession.browserBackingUserAgent`) are
    /// left out: their browser session is listed.
    public func sessions(userID: UserID) async throws -> [SessionRecord] {
        try await pool.read { db in
            try SessionRecord.fetchAll(
                db, sql: "SELECT * FROM sessions WHERE user_id = ? AND user_agent IS NOT ? ORDER BY id DESC",
                arguments: [userID.rawValue, NewSession.browserBackingUserAgent])
        }
    }
}
