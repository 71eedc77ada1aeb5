import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// Adds a superuser; an email already taken (any letter case) → `AuthError.emailExists`.
    public func createSuperuser(id: String, email: String, passwordHash: String, at now: Date) async throws -> SuperuserRecord {
        let record = SuperuserRecord(id: id, email: email, passwordHash: passwordHash, createdAt: now, updatedAt: now)
        try await pool.write { db in
            do {
                try db.execute(
                    sql: """
                        INSERT INTO superusers (id, email, email_normalized, password_hash, created_at, updated_at)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """, arguments: [id, email, EmailAddress.normalize(email), passwordHash, now.storedText, now.storedText])
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                throw AuthError.emailExists
            }
        }
        return record
    }

    /// Replaces a superuser's password hash (`superuser create` on an existing email with `--force`).
    public func setSuperuserPassword(email: String, passwordHash: String, at now: Date) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE superusers SET password_hash = ?, updated_at = ? WHERE email_normalized = ?",
                arguments: [passwordHash, now.storedText, EmailAddress.normalize(email)])
            return db.changesCount == 1
        }
    }

    /// Takes the staff role away: the superuser goes, and with them (`ON DELETE CASCADE`) every
    /// session at each of staff's doors, their passkeys, authenticator key and recovery codes.
    /// False when no superuser has `email`.
    public func deleteSuperuser(email: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM superusers WHERE email_normalized = ?", arguments: [EmailAddress.normalize(email)])
            return db.changesCount == 1
        }
    }

    public func superuser(email: String) async throws -> SuperuserRecord? {
        try await pool.read { db in
            try SuperuserRecord.fetchOne(
                db, sql: "SELECT * FROM superusers WHERE email_normalized = ?",
                arguments: [EmailAddress.normalize(email)])
        }
    }

    /// Every superuser, in the order they were given the role.
    public func superusers() async throws -> [SuperuserRecord] {
        try await pool.read { db in
            try SuperuserRecord.fetchAll(db, sql: "SELECT * FROM superusers ORDER BY created_at, id")
        }
    }

    public func superuser(id: String) async throws -> SuperuserRecord? {
        try await pool.read { db in
            try SuperuserRecord.fetchOne(db, sql: "SELECT * FROM superusers WHERE id = ?", arguments: [id])
        }
    }

    /// True when `email` belongs to a superuser (the console refuses to impersonate one).
    public func isSuperuser(email: String) async throws -> Bool {
        try await superuser(email: email) != nil
    }

    /// Which of `emails` (as typed, any letter case) belong to a superuser, normalized: the
    /// addresses that hold the staff role, for the console's badge.
    public func superuserEmails(among emails: [String]) async throws -> Set<String> {
        let normalized = Array(Set(emails.map(EmailAddress.normalize)))
        guard !normalized.isEmpty else { return [] }
        return try await pool.read { db in
            var found: Set<String> = []
            for chunk in normalized.chunked(Self.keysPerStatement) {
                found.formUnion(
                    try String.fetchAll(
                        db,
                        sql: """
                            SELECT email_normalized FROM superusers
                            WHERE email_normalized IN (\(databaseQuestionMarks(count: chunk.count)))
                            """, arguments: StatementArguments(chunk)))
            }
            return found
        }
    }

    /// Starts a superuser's session (a row of the one `sessions` table, held by `superuser_id`)
    /// whose token hashes to `tokenHash`.
    public func createConsoleSession(
        tokenHash: String, superuserID: String, userAgent: String?, ip: String?,
        at now: Date, expiresAt: Date
    ) async throws {
        try await pool.write { db in
            try Self.insertConsoleSession(
                db, tokenHash: tokenHash, superuserID: superuserID, userAgent: userAgent, ip: ip, at: now,
                expiresAt: expiresAt.storedText)
        }
    }

    /// A superuser's new row, begun `now` and used since, ending at `expiresAt` (as stored).
    private static func insertConsoleSession(
        _ db: Database, tokenHash: String, superuserID: String, userAgent: String?, ip: String?, at now: Date,
        expiresAt: DatabaseValue
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO sessions (token_hash, superuser_id, user_agent, ip, created_at, last_used_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [tokenHash, superuserID, userAgent, ip, now.storedText, now.storedText, expiresAt])
    }

    /// Replaces the live console session `id` with a new one under `tokenHash`, begun `now` and
    /// ending when the old one would have, in one transaction. False (and nothing written) when
    /// the old session is no longer live.
    public func renewConsoleSession(
        id: Int64, tokenHash: String, userAgent: String?, ip: String?, at now: Date
    ) async throws -> Bool {
        try await pool.write { db in
            guard
                let old = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT superuser_id, expires_at FROM sessions
                        WHERE id = ? AND superuser_id IS NOT NULL AND revoked_at IS NULL AND expires_at > ?
                        """, arguments: [id, now.storedText])
            else { return false }
            try db.execute(sql: "UPDATE sessions SET revoked_at = ? WHERE id = ?", arguments: [now.storedText, id])
            try Self.insertConsoleSession(
                db, tokenHash: tokenHash, superuserID: old["superuser_id"], userAgent: userAgent, ip: ip, at: now,
                expiresAt: old["expires_at"] as DatabaseValue)
            return true
        }
    }

    /// The live console session for `tokenHash`: not revoked, not expired, and used within
    /// `idleTimeout`. Touch and revoke it with `touchSession(id:at:)` and `revokeSession(id:at:)`.
    public func activeConsoleSession(tokenHash: String, now: Date, idleTimeout: TimeInterval) async throws
        -> (session: ConsoleSessionRecord, superuser: SuperuserRecord)?
    {
        // Every superuser request runs this: one statement on the calling thread (`HotReads`).
        try hotReads.read { connection in
            try connection.first(
                Self.activeConsoleSessionSQL,
                [.text(tokenHash), .date(now), .date(now.addingTimeInterval(-idleTimeout))]
            ) { row in (try ConsoleSessionRecord(columns: row), try SuperuserRecord(columns: row.joined)) }
        }
    }

    /// A live superuser's session (not revoked, not expired at `?2`, last used after `?3`) with its
    /// superuser (`SELECT c.*, u.*`); the join finds superusers' rows only.
    private static let activeConsoleSessionSQL = """
        SELECT c.*, u.* FROM sessions c JOIN superusers u ON u.id = c.superuser_id
        WHERE c.token_hash = ?1 AND c.revoked_at IS NULL
          AND c.expires_at > ?2
          AND c.last_used_at > ?3
        """
}
