import AuthCore
import Foundation
import GRDB
import Secrets

extension AppDatabase {
    /// One page of the console's user list: filters, a total count, and keyset paging (the cursor
    /// names the last row shown, so deep pages cost the same as the first and never skip or repeat
    /// rows when users are added meanwhile).
    public func listUsers(_ query: UserQuery) async throws -> UserPage {
        try await pool.read { db in
            var conditions: [String] = []
            var arguments: StatementArguments = []
            if let search = query.search?.trimmingCharacters(in: .whitespacesAndNewlines), !search.isEmpty {
                let pattern = "%" + Self.likeEscaped(search.lowercased()) + "%"
                if Self.usesTrigramIndex(search) {
                    // The trigram index answers "contains" over email and name without a table scan.
                    conditions.append("(id IN (SELECT user_id FROM users_search WHERE text LIKE ?) OR id = ?)")
                    arguments += [pattern, search]
                } else {
                    // Under three characters, or with LIKE's own wildcards: a scan, exact but slower.
                    conditions.append(
                        """
                        (email_normalized LIKE ? ESCAPE '\\' OR id = ? \
                        OR lower(coalesce(json_extract(profile, '$.name'), '')) LIKE ? ESCAPE '\\')
                        """)
                    arguments += [pattern, search, pattern]
                }
            }
            if let verified = query.verified {
                conditions.append("verified = ?")
                arguments += [verified]
            }
            if let disabled = query.disabled {
                conditions.append("disabled = ?")
                arguments += [disabled]
            }
            if let linked = query.hasExternalAuth {
                conditions.append((linked ? "" : "NOT ") + "EXISTS (SELECT 1 FROM external_auths e WHERE e.user_id = users.id)")
            }
            if let ids = query.ids {
                conditions.append(ids.isEmpty ? "0" : "id IN (\(databaseQuestionMarks(count: ids.count)))")
                arguments += StatementArguments(ids.map(\.rawValue))
            }
            let records = try UserRecordFilter(query)
            if let compiled = records.filter {
                conditions.append("(\(compiled.sql))")
                arguments += compiled.arguments
            }
            let source = records.source
            let filter = conditions.isEmpty ? "1" : conditions.joined(separator: " AND ")
            let total =
                query.skipTotal
                ? -1 : try Int.fetchOne(db, sql: "SELECT count(*) FROM \(source) WHERE \(filter)", arguments: arguments) ?? 0

            let order = UserListOrder(query.sort)
            var pageFilter = filter
            var pageArguments = arguments
            if let cursor = query.cursor.flatMap(UserListCursor.init(encoded:)) {
                pageFilter += " AND (\(order.column), id) \(order.after) (?, ?)"
                pageArguments += [
                    order.isDate
                        ? Date(timeIntervalSince1970: cursor.date) as DatabaseValueConvertible
                        : cursor.text, cursor.id
                ]
            }
            // Without a cursor, `page` still works (offset paging, as PocketBase's API does).
            let offset = query.cursor == nil ? (query.page - 1) * query.perPage : 0
            let orderBy = records.sort ?? "\(order.column) \(order.direction), id \(order.direction)"
            let rows = try UserRecord.fetchAll(
                db,
                sql: """
                    SELECT * FROM \(source) WHERE \(pageFilter) ORDER BY \(orderBy)
                    LIMIT ? OFFSET ?
                    """, arguments: pageArguments + [query.perPage + 1, offset])
            let shown = Array(rows.prefix(query.perPage))
            // A PocketBase-syntax sort pages by offset only (no cursor).
            let next =
                rows.count > query.perPage && records.sort == nil
                ? shown.last.map { UserListCursor(after: $0, order: order).encoded } : nil
            return UserPage(
                users: shown.map(\.user), page: query.cursor == nil ? query.page : 1, perPage: query.perPage,
                totalItems: total, nextCursor: next)
        }
    }

    /// Whether `text` reads the same inside any JSON string: printable ASCII without the quote,
    /// backslash or slash that encoders may escape (non-ASCII may be written as `\uXXXX`).
    /// FTS5's trigram index serves LIKE when the text has 3+ characters and none of LIKE's wildcards
    /// (which it would take literally only with ESCAPE, which the index does not support).
    private static func usesTrigramIndex(_ text: String) -> Bool {
        text.count >= 3 && !text.contains(where: { $0 == "%" || $0 == "_" || $0 == "\\" })
    }

    private static func likeEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}

/// How one `UserSort` maps to SQL.
private struct UserListOrder {
    var column: String
    var direction: String
    /// The row-value comparison that means "after the cursor" in this order.
    var after: String
    var isDate: Bool

    init(_ sort: UserSort) {
        switch sort {
        case .newest: (column, direction, after, isDate) = ("created_at", "DESC", "<", true)
        case .oldest: (column, direction, after, isDate) = ("created_at", "ASC", ">", true)
        case .emailAscending: (column, direction, after, isDate) = ("email_normalized", "ASC", ">", false)
        case .emailDescending: (column, direction, after, isDate) = ("email_normalized", "DESC", "<", false)
        }
    }
}

/// The last row of a page, as an opaque URL-safe string (base64url of `[unix time, email, id]`).
private struct UserListCursor {
    var date: TimeInterval = 0
    var text: String = ""
    var id: String

    init(after user: UserRecord, order: UserListOrder) {
        id = user.id.rawValue
        if order.isDate { date = user.createdAt.timeIntervalSince1970 } else { text = user.emailNormalized }
    }

    init?(encoded: String) {
        guard let bytes = Base64URL.decode(encoded),
            let parts = try? JSONDecoder().decode([String].self, from: Data(bytes)), parts.count == 3,
            let date = Double(parts[0])
        else { return nil }
        self.date = date
        text = parts[1]
        id = parts[2]
    }

    var encoded: String {
        Base64URL.encode([UInt8]((try? JSONEncoder().encode([String(date), text, id])) ?? Data()))
    }
}
