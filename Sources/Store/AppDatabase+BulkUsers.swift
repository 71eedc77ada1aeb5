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
    /// and user count are brought up to date once per batch and the change log once at the end,
    /// instead of by triggers per row (`BulkUserIndexing`), and addresses are not looked up before
    /// inserting; only when the UNIQUE index refuses a row are the taken ones found →
    /// `StoreError.emailsTaken` with each of them.
    public func insertUsers(
        count: Int, record: @escaping @Sendable (Int) -> UserRecord,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> [UserID] {
        guard count > 0 else { return [] }
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
                var firstRow: Int64 = 0
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
                    if n == 1 { firstRow = db.lastInsertedRowID }
                    if n % Self.seedBatchSize == 0 || n == count {
                        try indexing.index(rows: batchStart...db.lastInsertedRowID, in: db)
                        progress(n)
                    }
                }
                try indexing.logCreates(rows: firstRow...db.lastInsertedRowID, in: db)
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

    /// Deletes every account with everything that cascades from it (tokens, links, second steps),
    /// revokes every session and forgets every tag, in one transaction; returns how many accounts
    /// there were.
    ///
    /// Set-based, not per row (a million accounts took 15 s, now about 5): the search index is
    /// recreated empty (deleting from an FTS5 table re-tokenizes every row), each cascading table is
    /// emptied whole, the per-row delete triggers are suspended (the change log gets the deletes it
    /// keeps in one statement), and foreign keys are switched off on
    /// the writer for the length of the transaction so SQLite truncates `users` instead of checking
    /// every child table per row. When a table refers to `users` without `ON DELETE CASCADE`, keys
    /// stay on and SQLite enforces that rule row by row as usual.
    public func deleteAllUsers(at now: Date) async throws -> Int {
        try await pool.writeWithoutTransaction { db in
            var deleted = 0
            let inOneTransaction = { (emptying: [String]) in
                try db.inTransaction {
                    deleted = try Self.deleteAllUsers(at: now, emptying: emptying, db)
                    return .commit
                }
            }
            guard let cascading = try Self.tablesCascadingFromUsers(db) else {
                try inOneTransaction([])
                return deleted
            }
            // Only outside a transaction does this pragma take effect; it is per connection, and
            // this is the one writer, held for the whole closure.
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            let outcome = Result(catching: { try inOneTransaction(cascading) })
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            try outcome.get()
            return deleted
        }
    }

    /// The tables whose rows `users` deletes cascade to, or nil when some table refers to `users`
    /// with another action (those rows must be left to SQLite's per-row enforcement).
    private static func tablesCascadingFromUsers(_ db: Database) throws -> [String]? {
        let references = try Row.fetchAll(
            db,
            sql: """
                SELECT m.name AS child, upper(k.on_delete) AS action FROM sqlite_master m, pragma_foreign_key_list(m.name) k
                WHERE m.type = 'table' AND k."table" = 'users' ORDER BY m.name
                """)
        guard references.allSatisfy({ ($0["action"] as String?) == "CASCADE" }) else { return nil }
        return references.map { $0["child"] as String }
    }

    /// The body of `deleteAllUsers`, inside its transaction; returns how many accounts there were.
    private static func deleteAllUsers(at now: Date, emptying cascading: [String], _ db: Database) throws -> Int {
        // People's sessions only: superusers' rows (`user_id` NULL) stay signed in.
        try db.execute(
            sql: "UPDATE sessions SET revoked_at = ? WHERE user_id IS NOT NULL AND revoked_at IS NULL",
            arguments: [now.storedText])
        try db.execute(sql: "DELETE FROM user_tags")
        try db.execute(sql: "DELETE FROM app_user_meta")
        try recreateEmpty("users_search", db)
        try db.execute(sql: "DELETE FROM users_search_keys")
        for table in cascading {
            try db.execute(sql: "DELETE FROM \(table)")
        }
        // The change log keeps only its newest `keptUserChanges`: only that many deletes are logged.
        let triggers = try SuspendedTriggers(["user_count_delete", "users_search_delete", "user_changes_delete"], in: db)
        try db.execute(
            sql: """
                INSERT INTO user_changes (user_id, action, record)
                    SELECT id, 'delete', \(loggedRow(""))
                    FROM (SELECT rowid AS position, * FROM users ORDER BY rowid DESC LIMIT ?) ORDER BY position
                """, arguments: [keptUserChanges])
        try db.execute(sql: "DELETE FROM users")
        let deleted = db.changesCount
        try db.execute(sql: "UPDATE user_count SET n = 0 WHERE id = 1")
        try triggers.restore(in: db)
        return deleted
    }

    /// Drops `table` and creates it again from its own `sqlite_master` text: an FTS5 table is
    /// emptied this way in one step, where a `DELETE` tokenizes every row to take it out.
    private static func recreateEmpty(_ table: String, _ db: Database) throws {
        let definition = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [table])
        try db.execute(sql: "DROP TABLE \(table)")  // throws "no such table" when there was no definition
        if let definition { try db.execute(sql: definition) }
    }

    /// Revokes every session of these users and forgets their tags and app meta: what Gatehouse itself keeps
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
            try db.execute(sql: "DELETE FROM app_user_meta WHERE user_id IN (\(marks))", arguments: arguments)
        }
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
