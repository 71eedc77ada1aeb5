import AuthCore
import Foundation
import HTTPServer
import Store

/// Every user (or every user with a tag) as a JSON or CSV download, read in pages of 500 through
/// the backend's keyset cursor. A download's body is buffered, so the file is built in memory page
/// by page and sent at the end: paged, not streamed. Password hashes are never exported.
public struct UserExport: Sendable {
    let database: AppDatabase
    let api: any AuthAPI

    public init(database: AppDatabase, api: any AuthAPI) { (self.database, self.api) = (database, api) }

    /// A superuser's export through the configured backend.
    public init(env: Accounts) {
        self.init(database: env.database, api: env.backend)
    }

    static let pageSize = 500
    static let csvHeader = ["email", "name", "verified", "tags", "id", "disabled", "createdAt"]

    /// One account in a JSON export, as the admin API also shows it (`AdminUsersAPI.UserBody`).
    public struct Row: Encodable {
        public var id: String
        public var email: String
        var emailVerified: Bool
        var disabled: Bool
        var profile: [String: JSONValue]
        var tags: [String]
        var createdAt: String
        var updatedAt: String

        public init(_ user: User, tags: [String]) {
            id = user.id.rawValue
            email = user.email
            emailVerified = user.emailVerified
            disabled = user.disabled
            profile = user.profile.fields
            self.tags = tags
            createdAt = Timestamp.iso8601(user.createdAt)
            updatedAt = Timestamp.iso8601(user.updatedAt)
        }
    }

    /// The file's name for a download: `users` or `users-TAG`, with the tag's odd characters dropped.
    public static func fileName(format: UserImportFile.Format, tag: String?) -> String {
        let name = "users" + (tag.map { "-" + $0.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } } ?? "")
        return name + "." + format.rawValue
    }

    /// The file's bytes; `progress` hears (users written, users in all) after each page.
    public func file(
        format: UserImportFile.Format, tag: String?, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) async throws -> [UInt8] {
        var body: [UInt8] = []
        var count = 0
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            body += Array("[".utf8)
            try await forEachPage(tag: tag) { users, tags, total in
                for user in users {
                    if count > 0 { body += Array(",\n".utf8) }
                    body += try encoder.encode(Row(user, tags: tags[user.id] ?? []))
                    count += 1
                }
                progress(count, total)
            }
            body += Array("]\n".utf8)
        case .csv:
            body += Array(CSV.line(Self.csvHeader).utf8)
            try await forEachPage(tag: tag) { users, tags, total in
                for user in users {
                    body += Array(
                        CSV.line(
                            [
                                user.email, user.profile.name ?? "", user.emailVerified ? "true" : "false",
                                (tags[user.id] ?? []).joined(separator: " "), user.id.rawValue,
                                user.disabled ? "true" : "false", Timestamp.iso8601(user.createdAt)
                            ].map(CSV.spreadsheetSafe)
                        ).utf8)
                    count += 1
                }
                progress(count, total)
            }
        }
        return body
    }

    /// Calls `body` with each page of users, their tags and how many users there are in all, oldest first.
    private func forEachPage(
        tag: String?,
        _ body: ([User], [UserID: [String]], _ total: Int) async throws -> Void
    ) async throws {
        if let tag {
            // A tag resolves to ids; each slice of ids is one page.
            let ids = try await database.userIDs(taggedWith: tag)
            for start in stride(from: 0, to: ids.count, by: Self.pageSize) {
                let slice = Array(ids[start..<min(start + Self.pageSize, ids.count)])
                let page = try await api.admin.listUsers(UserQuery(perPage: Self.pageSize, ids: slice, sort: .oldest))
                try await body(page.users, try await database.tags(of: page.users.map(\.id)), ids.count)
            }
            return
        }
        var cursor: String? = nil
        repeat {
            let page = try await api.admin.listUsers(UserQuery(perPage: Self.pageSize, sort: .oldest, cursor: cursor))
            try await body(page.users, try await database.tags(of: page.users.map(\.id)), page.totalItems)
            cursor = page.nextCursor
        } while cursor != nil
    }
}
