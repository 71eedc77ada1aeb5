import AuthCore
import Foundation
import GRDB
import Secrets

extension AppDatabase {
    /// One page of the console's user list: filters, a total count, and keyset paging (the cursor
    /// names the last row shown, so deep pages cost the same as the first and never skip or repeat
    /// rows when users are added meanwhile). With `tag`, only the accounts carrying that test-user
    /// tag, read through `user_tags` in the same query, however many carry it (an id per variable
    /// took ~0.3 s a page at 100,000 and failed past SQLite's 250,000 variables); a common tag's
    /// page walks the sort's index (`tagWalkIsShort`), so only its count grows with the tag.
    public func listUsers(_ query: UserQuery, taggedWith tag: String? = nil) async throws -> UserPage {
        try await listUsers(query, taggedWith: tag, tagWalkLimit: Self.tagWalkLimit)
    }

    /// `listUsers(_:taggedWith:)` with the tag's walk limit given (tests pin each way of reading a tag).
    func listUsers(_ query: UserQuery, taggedWith tag: String?, tagWalkLimit: Int) async throws -> UserPage {
        try await pool.read { db in
            var conditions: [String] = []
            var arguments: StatementArguments = []
            // The LIKE pattern of a search with more hits in the trigram index than a narrow one.
            var broadSearch: String?
            if let search = query.search?.trimmingCharacters(in: .whitespacesAndNewlines), !search.isEmpty {
                let (condition, values, broadPattern) = try Self.searchCondition(search, in: db)
                conditions.append(condition)
                arguments += values
                broadSearch = broadPattern
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
            if let guest = query.guest {
                conditions.append((guest ? "" : "NOT ") + "EXISTS (SELECT 1 FROM guest_accounts g WHERE g.user_id = users.id)")
            }
            if let ids = query.ids {
                conditions.append(ids.isEmpty ? "0" : "id IN (\(databaseQuestionMarks(count: ids.count)))")
                arguments += StatementArguments(ids.map(\.rawValue))
            }
            let records = try UserRecordFilter(query)
            if let tag {
                let reach = query.cursor == nil ? Double(query.page) * Double(query.perPage) : Double(query.perPage)
                if conditions.isEmpty, records.filter == nil, records.source == "users",
                    try Self.tagWalkIsShort(tag, reach: reach, limit: tagWalkLimit, db)
                {
                    conditions.append("EXISTS (SELECT 1 FROM user_tags t WHERE t.tag = ? AND t.user_id = users.id)")
                } else {
                    conditions.append("id IN (SELECT user_id FROM user_tags WHERE tag = ?)")
                }
                arguments += [tag]
            }
            if let compiled = records.filter {
                conditions.append("(\(compiled.sql))")
                arguments += compiled.arguments
            }
            let source = records.source
            let filter = conditions.isEmpty ? "1" : conditions.joined(separator: " AND ")
            let total: Int
            var totalIsLowerBound = false
            if query.skipTotal {
                total = -1
            } else if conditions.isEmpty && source == "users" {
                // Kept by triggers (v5-userlist-count): counting a million rows would take ~80 ms.
                total = try Int.fetchOne(db, sql: "SELECT n FROM user_count WHERE id = 1") ?? 0
            } else if let limit = query.countLimit, query.ids == nil, tag == nil {
                // A broad search alone had more hits than `narrowSearchLimit` already; up to that, no
                // count is needed, and past it the index counts, stopping at the limit.
                let counted =
                    if broadSearch != nil, conditions.count == 1, source == "users", limit <= Self.narrowSearchLimit {
                        limit + 1
                    } else if let broadSearch, conditions.count == 1, source == "users" {
                        try Int.fetchOne(
                            db, sql: "SELECT count(*) FROM (SELECT 1 FROM users_search WHERE text LIKE ? LIMIT ?)",
                            arguments: [broadSearch, limit + 1]) ?? 0
                    } else {
                        try Int.fetchOne(
                            db, sql: "SELECT count(*) FROM (SELECT 1 FROM \(source) WHERE \(filter) LIMIT ?)",
                            arguments: arguments + [limit + 1]) ?? 0
                    }
                total = min(counted, limit)
                totalIsLowerBound = counted > limit
            } else {
                total = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(source) WHERE \(filter)", arguments: arguments) ?? 0
            }

            let order = UserListOrder(query.sort)
            var pageFilter = filter
            var pageArguments = arguments
            if let keyset = order.keyset, let cursor = query.cursor.flatMap(UserListCursor.init(encoded:)) {
                pageFilter += " AND (\(keyset.column), id) \(keyset.after) (?, ?)"
                pageArguments += [keyset.isDate ? Date(timeIntervalSince1970: cursor.date).storedText : cursor.text, cursor.id]
            }
            // An exact address, local part or id first, when asked for on a page-numbered list.
            var exact: [UserRecord] = []
            if query.exactFirst, query.cursor == nil, records.sort == nil, let search = query.search {
                exact = try Self.exactMatches(search, in: source, where: filter, arguments, db)
            }
            if !exact.isEmpty {
                pageFilter += " AND id NOT IN (\(databaseQuestionMarks(count: exact.count)))"
                pageArguments += StatementArguments(exact.map(\.id.rawValue))
            }
            // Without a cursor, `page` counts from the first row (offset paging, as PocketBase's API does).
            let start = query.cursor == nil ? (query.page - 1) * query.perPage : 0
            let exactShown = Array(exact.dropFirst(start).prefix(query.perPage))
            let limit = query.perPage - exactShown.count + 1
            let offset = max(0, start - exact.count)
            let rows =
                if let sort = records.sort {
                    try UserRecord.fetchAll(
                        db, sql: "SELECT * FROM \(source) WHERE \(pageFilter) ORDER BY \(sort) LIMIT ? OFFSET ?",
                        arguments: pageArguments + [limit, offset])
                } else {
                    try order.rows(
                        from: source, where: pageFilter, pageArguments, limit: limit, offset: offset,
                        of: exact.isEmpty && query.cursor == nil && !totalIsLowerBound ? total : nil, db)
                }
            let all = exactShown + rows
            let shown = Array(all.prefix(query.perPage))
            // A PocketBase-syntax sort, an exact match shown first or a sort without a keyset pages by
            // number only (no cursor).
            let next =
                all.count > query.perPage && records.sort == nil && exact.isEmpty
                ? order.keyset.flatMap { keyset in shown.last.map { UserListCursor(after: $0, keyset: keyset).encoded } }
                : nil
            return UserPage(
                users: shown.map(\.user), page: query.cursor == nil ? query.page : 1, perPage: query.perPage,
                totalItems: total, nextCursor: next, totalIsLowerBound: totalIsLowerBound)
        }
    }

    /// The accounts a search names exactly, for the top of the list: the id, the whole address, or
    /// (for a term without `@`) the address's local part (`test+42` is `test+42@…`, not `test+420@…`),
    /// at most `exactMatchLimit` of them, each still passing the list's filters. Both lookups are
    /// index seeks (the primary key, the address's UNIQUE index as a range).
    static func exactMatches(
        _ search: String, in source: String, where filter: String, _ arguments: StatementArguments, _ db: Database
    ) throws -> [UserRecord] {
        let term = search.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !term.isEmpty else { return [] }
        var sql = "SELECT id FROM users WHERE id = ? OR email_normalized = ?"
        var candidateArguments: StatementArguments = [term, term.lowercased()]
        if !term.contains("@") {
            // '@' is U+0040 and 'A' U+0041: the range holds exactly the addresses starting "term@".
            sql += " OR (email_normalized >= ? AND email_normalized < ?)"
            candidateArguments += [term.lowercased() + "@", term.lowercased() + "A"]
        }
        let ids = try String.fetchAll(db, sql: sql + " LIMIT ?", arguments: candidateArguments + [exactMatchLimit])
        guard !ids.isEmpty else { return [] }
        return try UserRecord.fetchAll(
            db,
            sql: """
                SELECT * FROM \(source) WHERE id IN (\(databaseQuestionMarks(count: ids.count))) AND \(filter)
                ORDER BY email_normalized, id
                """, arguments: StatementArguments(ids) + arguments)
    }

    /// Whether a page of a tag's list (its last row `reach` rows in) is cheaper found by walking the
    /// sort's own index and probing each row for the tag — about `reach` × users ÷ tagged rows read,
    /// at most `limit` — than by sorting every tagged row, which costs the tag's size (~0.2 s at
    /// 100,000). A common tag walks; a rare one, or a page deep in a common one, sorts.
    static func tagWalkIsShort(_ tag: String, reach: Double, limit: Int, _ db: Database) throws -> Bool {
        let tagged = try Int.fetchOne(db, sql: "SELECT count(*) FROM user_tags WHERE tag = ?", arguments: [tag]) ?? 0
        let users = try Int.fetchOne(db, sql: "SELECT n FROM user_count WHERE id = 1") ?? 0
        return tagged > 0 && reach * Double(users) / Double(tagged) <= Double(limit)
    }

    /// How many rows a tag's page may walk in the sort's index (`tagWalkIsShort`): ~10 ms.
    static let tagWalkLimit = 20_000

    /// How many exact matches a search puts first, at most.
    public static let exactMatchLimit = 20

    /// How many trigram-index hits make a search "broad" (see `searchCondition`).
    public static let narrowSearchLimit = 1000

    /// The WHERE condition for a console search (part of the email or name, any case, or the whole
    /// id), chosen so the page costs about the same whatever the term matches:
    /// - a narrow term (at most `narrowSearchLimit` hits in the trigram index, read with that LIMIT):
    ///   those ids, so only they are read and sorted;
    /// - a broad term (more hits, e.g. the domain every test user shares): the indexed text is
    ///   tested row by row while the list's own index is walked in order, so the LIMIT stops the walk
    ///   after one page instead of gathering and sorting every match (seconds at 1,000,000 users);
    /// - under three characters, or with LIKE's wildcards (the index cannot serve those): the same
    ///   row-by-row test.
    /// Returns the condition, its arguments, and for a broad term its pattern over `users_search.text`.
    private static func searchCondition(
        _ search: String, in db: Database
    ) throws -> (String, StatementArguments, broadPattern: String?) {
        let pattern = "%" + likeEscaped(search.lowercased()) + "%"
        if usesTrigramIndex(search) {
            let hits = try String.fetchAll(
                db, sql: "SELECT user_id FROM users_search WHERE text LIKE ? LIMIT ?",
                arguments: [pattern, narrowSearchLimit + 1])
            if hits.count <= narrowSearchLimit {
                let ids = hits + [search]
                return ("id IN (\(databaseQuestionMarks(count: ids.count)))", StatementArguments(ids), nil)
            }
        }
        // The same text the trigram index holds, so both ways match alike.
        return (
            "(id = ? OR (\(userSearchText)) LIKE ? ESCAPE '\\')", [search, pattern],
            usesTrigramIndex(search) ? pattern : nil
        )
    }

    /// A `users` row's text in the trigram index (email and name, lower case), as an SQL expression
    /// over the row's columns: what the v2-console-user-search triggers write, also written by a
    /// bulk insert (`BulkUserIndexing`) and tested row by row by a search the index cannot serve.
    static let userSearchText = "email_normalized || ' ' || lower(coalesce(json_extract(profile, '$.name'), ''))"

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

/// The last row of a page, as an opaque URL-safe string (base64url of `[unix time, email, id]`).
struct UserListCursor {
    var date: TimeInterval = 0
    var text: String = ""
    var id: String

    init(after user: UserRecord, keyset: UserListOrder.Keyset) {
        id = user.id.rawValue
        if keyset.isDate { date = user.createdAt.timeIntervalSince1970 } else { text = user.emailNormalized }
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
