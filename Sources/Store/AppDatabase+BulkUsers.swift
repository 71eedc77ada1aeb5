import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// Bound parameters per statement when a list of keys goes into `IN (…)`; well under SQLite's
    /// limit (https://www.sqlite.org/limits.html#max_variable_number).
    static let keysPerStatement = 500

    /// Inserts every account in one write transaction, or none: addresses already in use →
    /// `StoreError.emailsTaken` with each of them. GRDB reuses one prepared INSERT for every row.
    public func insertUsers(_ users: [UserRecord]) async throws {
        guard !users.isEmpty else { return }
        try await pool.write { db in
            let taken = try Self.taken(users.map(\.emailNormalized), in: db)
            guard taken.isEmpty else { throw StoreError.emailsTaken(taken) }
            do {
                for user in users { try user.insert(db) }
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                // Two rows of the batch share an address; callers check for that first.
                throw AuthError.emailExists
            }
        }
    }

    /// The stored addresses of accounts whose normalized email is among `normalizedEmails`.
    public func takenEmails(among normalizedEmails: [String]) async throws -> [String] {
        try await pool.read { db in try Self.taken(normalizedEmails, in: db) }
    }

    private static func taken(_ normalizedEmails: [String], in db: Database) throws -> [String] {
        var taken: [String] = []
        for chunk in normalizedEmails.chunked(keysPerStatement) {
            taken += try String.fetchAll(
                db,
                sql: """
                    SELECT email FROM users WHERE email_normalized IN (\(databaseQuestionMarks(count: chunk.count)))
                    """, arguments: StatementArguments(chunk))
        }
        return taken.sorted()
    }

    /// Deletes the accounts (tokens and links cascade), revokes their sessions and forgets their
    /// tags, in one transaction. Returns how many accounts existed.
    public func deleteUsers(ids: [UserID], at now: Date) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        return try await pool.write { db in
            try Self.forget(ids, at: now, in: db)
            var deleted = 0
            for chunk in ids.map(\.rawValue).chunked(Self.keysPerStatement) {
                try db.execute(
                    sql: "DELETE FROM users WHERE id IN (\(databaseQuestionMarks(count: chunk.count)))",
                    arguments: StatementArguments(chunk))
                deleted += db.changesCount
            }
            return deleted
        }
    }

    /// Revokes every session of these users and forgets their tags: what Gatehouse itself keeps
    /// about accounts a backend has deleted.
    public func forgetUsers(ids: [UserID], at now: Date) async throws {
        guard !ids.isEmpty else { return }
        try await pool.write { db in try Self.forget(ids, at: now, in: db) }
    }

    private static func forget(_ ids: [UserID], at now: Date, in db: Database) throws {
        for chunk in ids.map(\.rawValue).chunked(keysPerStatement) {
            let marks = databaseQuestionMarks(count: chunk.count)
            let arguments = StatementArguments(chunk)
            try db.execute(
                sql: "UPDATE sessions SET revoked_at = ? WHERE revoked_at IS NULL AND user_id IN (\(marks))",
                arguments: [now] + arguments)
            try db.execute(sql: "DELETE FROM user_tags WHERE user_id IN (\(marks))", arguments: arguments)
        }
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
