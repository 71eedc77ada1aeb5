import GRDB

/// What the `users` INSERT triggers keep (the trigram search index, v2-console-user-search, the
/// user count, v5-userlist-count, and the change log, v6-user-changes), kept for a bulk insert by
/// a few set-based statements per batch (the log: once, at the end) instead of a trigger program
/// per row (issue 13: the triggers were ~47 % of seeding a million users, each row's FTS5 insert
/// flushed as its own tiny segment and then merged).
///
/// Lives inside one write transaction: `init` suspends the three triggers and `restoreTriggers`
/// creates them again (`SuspendedTriggers`). Other triggers on `users` are left alone and fire as
/// usual.
struct BulkUserIndexing {
    /// The triggers whose per-row work `index(rows:in:)` and `logCreates(rows:in:)` do for many rows.
    static let replacedTriggers = ["users_search_insert", "user_count_insert", "user_changes_insert"]

    private let triggers: SuspendedTriggers
    /// The search index key the next indexed row gets, counted up as batches are indexed.
    private var nextSearchRowID: Int64

    init(_ db: Database) throws {
        triggers = try SuspendedTriggers(Self.replacedTriggers, in: db)
        // FTS5 serves a descending rowid scan with LIMIT 1 from its content table's key: no full scan.
        nextSearchRowID = (try Int64.fetchOne(db, sql: "SELECT rowid FROM users_search ORDER BY rowid DESC LIMIT 1") ?? 0) + 1
    }

    /// Adds the `users` rows with rowids in `rows` (just inserted, in this transaction) to the
    /// search index and the count, as the triggers would have: the same text, a fresh index key
    /// per user mapped in `users_search_keys`. SQLite gives each new row the largest rowid plus one
    /// (sqlite.org/autoinc.html), and the write lock keeps others out, so a batch's rows are
    /// exactly that range.
    mutating func index(rows: ClosedRange<Int64>, in db: Database) throws {
        let offset = nextSearchRowID - rows.lowerBound
        let arguments: StatementArguments = [offset, rows.lowerBound, rows.upperBound]
        try db.execute(
            sql: """
                INSERT INTO users_search (rowid, user_id, text)
                    SELECT rowid + ?, id, \(AppDatabase.userSearchText) FROM users WHERE rowid BETWEEN ? AND ?
                """, arguments: arguments)
        // In key order, so the index's B-tree is written page after page rather than at random.
        try db.execute(
            sql: """
                INSERT INTO users_search_keys (user_id, search_rowid)
                    SELECT id, rowid + ? FROM users WHERE rowid BETWEEN ? AND ? ORDER BY id
                """, arguments: arguments)
        try db.execute(sql: "UPDATE user_count SET n = n + ? WHERE id = 1", arguments: [rows.count])
        nextSearchRowID += Int64(rows.count)
    }

    /// Logs the creation of the `users` rows with rowids in `rows` (the whole insert, once at its
    /// end), without their state (readers take them as they are). The write is one transaction, so
    /// no reader sees the log between batches: only the newest `keptUserChanges` are logged, the
    /// ones the log would keep.
    func logCreates(rows: ClosedRange<Int64>, in db: Database) throws {
        let first = max(rows.lowerBound, rows.upperBound - Int64(AppDatabase.keptUserChanges) + 1)
        try db.execute(
            sql: "INSERT INTO user_changes (user_id, action) SELECT id, 'create' FROM users WHERE rowid BETWEEN ? AND ?",
            arguments: [first, rows.upperBound])
    }

    /// Creates the suspended triggers again, exactly as they were defined.
    func restoreTriggers(in db: Database) throws {
        try triggers.restore(in: db)
    }
}
