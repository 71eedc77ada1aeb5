import AuthCore
import GRDB
import ServerSeam

extension AppDatabase {
    /// The number of the newest logged account change (0 before the first): a reader that starts
    /// here sees only changes made from now on.
    public func lastUserChange() async throws -> Int64 {
        try await pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM user_changes ORDER BY seq DESC LIMIT 1") ?? 0
        }
    }

    /// Up to `limit` logged changes after `seq`, oldest first, each with the account as that change
    /// left it, and the number of the last one read (`seq` when there is none). A bulk-inserted
    /// account, logged without its row, comes as it is now, or not at all when deleted since (its
    /// delete follows).
    public func userChanges(after seq: Int64, limit: Int) async throws -> (changes: [UserChange], through: Int64) {
        try await pool.read { db in
            let extracted = Self.loggedColumns.map { "json_extract(record, '$.\($0)') AS \($0)" }.joined(separator: ", ")
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT seq, action, user_id, record IS NOT NULL AS logged, NULL AS password_hash, \(extracted)
                    FROM user_changes WHERE seq > ? ORDER BY seq LIMIT ?
                    """, arguments: [seq, limit])
            guard let through = rows.last?["seq"] as Int64? else { return ([], seq) }
            let unlogged = rows.filter { !$0["logged"] }.map { $0["user_id"] as String }
            var current: [String: User] = [:]
            for chunk in unlogged.chunked(Self.keysPerStatement) {
                for record in try UserRecord.fetchAll(
                    db, sql: "SELECT * FROM users WHERE id IN (\(databaseQuestionMarks(count: chunk.count)))",
                    arguments: StatementArguments(chunk))
                {
                    current[record.id.rawValue] = record.user
                }
            }
            let changes = try rows.compactMap { row -> UserChange? in
                guard let action = UserChange.Action(rawValue: row["action"]),
                    let user = row["logged"] ? try UserRecord(row: row).user : current[row["user_id"]]
                else { return nil }
                return UserChange(action: action, user: user, position: UserChangePosition(row["seq"]))
            }
            return (changes, through)
        }
    }
}

extension AppDatabase {
    /// Whether `user` as given (the state a logged change left) is among `query`'s `ids` and
    /// passes its filter, evaluated as `listUsers` evaluates it on stored rows: a live view's filter
    /// applies to each change's state, also after the row changed again or was deleted.
    public func user(_ user: User, passes query: UserQuery) async throws -> Bool {
        if let ids = query.ids, !ids.contains(user.id) { return false }
        guard let filter = try UserRecordFilter(query).filter else { return true }
        var arguments: StatementArguments = [
            user.id.rawValue, user.email, EmailAddress.normalize(user.email), user.emailVerified,
            try Self.json(user.profile.fields), user.disabled, user.createdAt.storedText, user.updatedAt.storedText
        ]
        arguments += filter.arguments
        let bound = arguments
        let row = """
            (SELECT ? AS id, ? AS email, ? AS email_normalized, NULL AS password_hash, ? AS verified, ? AS profile,
                ? AS disabled, ? AS created_at, ? AS updated_at)
            """
        return try await pool.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM \(UserRecordFilter.recordView(of: row)) WHERE \(filter.sql))",
                arguments: bound) ?? false
        }
    }
}
