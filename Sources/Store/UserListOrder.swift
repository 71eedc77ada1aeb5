import AuthCore
import GRDB

/// How one `UserSort` reads a page of users, each order walking an index so that a page costs its
/// offset in index entries, never a sort of every match (`s16-user-list-sort` holds the indexes).
struct UserListOrder {
    /// A sort on one `users` column that a cursor can resume after (the older keyset paging).
    struct Keyset {
        var column: String
        /// The row-value comparison that means "after the cursor" in this order.
        var after: String
        var isDate: Bool
    }

    let sort: UserSort

    init(_ sort: UserSort) { self.sort = sort }

    var keyset: Keyset? {
        switch sort {
        case .newest: Keyset(column: "created_at", after: "<", isDate: true)
        case .oldest: Keyset(column: "created_at", after: ">", isDate: true)
        case .emailAscending: Keyset(column: "email_normalized", after: ">", isDate: false)
        case .emailDescending: Keyset(column: "email_normalized", after: "<", isDate: false)
        default: nil
        }
    }

    /// The ORDER BY of every sort but last sign-in, written as its index is (`users_name`,
    /// `users_status`), so SQLite walks the index instead of sorting.
    var orderBy: String {
        switch sort {
        case .newest, .lastSignInNewest: "created_at DESC, id DESC"
        case .oldest, .lastSignInOldest: "created_at ASC, id ASC"
        case .emailAscending: "email_normalized ASC, id ASC"
        case .emailDescending: "email_normalized DESC, id DESC"
        case .nameAscending: "lower(json_extract(profile, '$.name')) ASC, id ASC"
        case .nameDescending: "lower(json_extract(profile, '$.name')) DESC, id DESC"
        case .statusAscending: "disabled ASC, verified DESC, created_at DESC, id DESC"
        case .statusDescending: "disabled DESC, verified ASC, created_at ASC, id ASC"
        }
    }

    /// Up to `limit` rows of `source` matching `filter`, after skipping `offset`. With `total`, the
    /// exact number of matches, a page in the back half is read from the other end (the reverse
    /// order, reversed back), so the last page costs what the first does.
    func rows(
        from source: String, where filter: String, _ arguments: StatementArguments, limit: Int, offset: Int,
        of total: Int? = nil, _ db: Database
    ) throws -> [UserRecord] {
        switch sort {
        case .lastSignInNewest, .lastSignInOldest:
            return try lastSignInRows(from: source, where: filter, arguments, limit: limit, offset: offset, db)
        default:
            let sql = "SELECT * FROM \(source) WHERE \(filter) ORDER BY %@ LIMIT ? OFFSET ?"
            if let total, offset > total / 2, offset < total {
                let end = min(total, offset + limit)
                let rows = try UserRecord.fetchAll(
                    db, sql: sql.replacingOccurrences(of: "%@", with: UserListOrder(sort.reversed).orderBy),
                    arguments: arguments + [end - offset, total - end])
                return rows.reversed()
            }
            return try UserRecord.fetchAll(
                db, sql: sql.replacingOccurrences(of: "%@", with: orderBy), arguments: arguments + [limit, offset])
        }
    }

    /// By last sign-in: the accounts that signed in, from `user_last_sign_ins`' index, and the
    /// accounts that never did, by creation (after them when newest first, before them otherwise).
    /// Each part is a walk of its own index; a page that straddles both reads the second from its start.
    private func lastSignInRows(
        from source: String, where filter: String, _ arguments: StatementArguments, limit: Int, offset: Int,
        _ db: Database
    ) throws -> [UserRecord] {
        let direction = sort == .lastSignInNewest ? "DESC" : "ASC"
        let signedIn = """
            SELECT users.* FROM user_last_sign_ins l JOIN \(source) ON users.id = l.user_id WHERE \(filter)
            ORDER BY l.at \(direction), l.user_id \(direction)
            """
        let never = """
            SELECT * FROM \(source) WHERE \(filter)
                AND NOT EXISTS (SELECT 1 FROM user_last_sign_ins l WHERE l.user_id = users.id)
            ORDER BY \(orderBy)
            """
        var rows: [UserRecord] = []
        var skip = offset
        for part in sort == .lastSignInNewest ? [signedIn, never] : [never, signedIn] {
            let found = try UserRecord.fetchAll(
                db, sql: part + " LIMIT ? OFFSET ?", arguments: arguments + [limit - rows.count, skip])
            rows += found
            if rows.count >= limit { break }
            // This part had fewer rows than the offset: the next starts that many rows later.
            skip =
                found.isEmpty && skip > 0
                ? max(0, skip - (try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(part))", arguments: arguments) ?? 0))
                : 0
        }
        return rows
    }
}
