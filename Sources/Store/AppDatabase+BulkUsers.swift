import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// Bound parameters per statement when a list of keys goes into `IN (…)`; well under SQLite's
    /// limit (https://www.sqlite.org/limits.html#max_variable_number).
    static let keysPerStatement = 500

    /// Rows written between two `progress` calls of `insertUsers(count:record:progress:)`.
    public static let seedBatchSize = 10_000

    /// Inserts `count` accounts made by `record(n)` (n from 1) in one write transaction, or none,
    /// through one prepared INSERT, calling `progress` with the rows written after each batch. Made for
    /// a million rows: the records are made one at a time (never all held at once), the search index
    /// and user count are brought up to date once per batch instead of by triggers per row
    /// (`BulkUserIndexing`), and addresses are not looked up before inserting; only when the UNIQUE
    /// index refuses a row are the taken ones found → `StoreError.emailsTaken` with each of them.
    public func insertUsers(
        count: Int, record: @escaping @Sendable (Int) -> UserRecord,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> [UserID] {
        guard count > 0 else { return [] }
        // The batch's page cache and records are freed at the end, but the C allocator keeps freed
        // memory for reuse: hand it back, or a server that seeded once holds it for good.
        defer { ProcessMemory.returnFreed() }
        do {
            return try await pool.write { db in
                // A page cache large enough for the whole batch, so pages are written once, at commit,
                // not spilled to the WAL again and again (sqlite.org/pragma.html#pragma_cache_size).
                let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
                try db.execute(sql: "PRAGMA cache_size = -524288")
                defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
                var indexing = try BulkUserIndexing(db)
                let statement = try db.makeStatement(
                    sql: """
                        INSERT INTO users (id, email, email_normalized, password_hash, verified, profile, disabled,
                            created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                var ids: [UserID] = []
                ids.reserveCapacity(count)
                var profiles: [Profile: String] = [:]
                // Seeded accounts share one creation time: its text is made once.
                var lastDate: (date: Date, value: DatabaseValue)?
                // The rowid of the batch's first row: the batch is indexed as one range.
                var batchStart: Int64 = 0
                for n in 1...count {
                    let user = record(n)
                    let profile: String
                    if let known = profiles[user.profile] {
                        profile = known
                    } else {
                        profile = try Self.json(user.profile.fields)
                        if profiles.count < 16 { profiles[user.profile] = profile }
                    }
                    let created: DatabaseValue
                    if let lastDate, lastDate.date == user.createdAt {
                        created = lastDate.value
                    } else {
                        created = user.createdAt.storedText
                        lastDate = (user.createdAt, created)
                    }
                    let updated = user.updatedAt == user.createdAt ? created : user.updatedAt.storedText
                    try statement.execute(arguments: [
                        user.id.rawValue, user.email, user.emailNormalized, user.passwordHash, user.verified, profile,
                        user.disabled, created, updated
                    ])
                    ids.append(user.id)
                    if (n - 1) % Self.seedBatchSize == 0 { batchStart = db.lastInsertedRowID }
                    if n % Self.seedBatchSize == 0 || n == count {
                        try indexing.index(rows: batchStart...db.lastInsertedRowID, in: db)
                        progress(n)
                    }
                }
                try indexing.restoreTriggers(in: db)
                return ids
            }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            let taken = try await takenEmails(among: (1...count).map { record($0).emailNormalized })
            guard !taken.isEmpty else { throw AuthError.emailExists }
            throw StoreError.emailsTaken(taken)
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

    /// Deletes every account (tokens and links cascade), revokes every session and forgets every
    /// tag, in one transaction; returns how many accounts there were. The search index is emptied
    /// first, so its per-row trigger finds nothing left to do.
    public func deleteAllUsers(at now: Date) async throws -> Int {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE sessions SET revoked_at = ? WHERE revoked_at IS NULL;
                    DELETE FROM user_tags;
                    DELETE FROM users_search;
                    DELETE FROM users_search_keys;
                    """, arguments: [now.storedText])
            try db.execute(sql: "DELETE FROM users")
            return db.changesCount
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
                arguments: [now.storedText] + arguments)
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
