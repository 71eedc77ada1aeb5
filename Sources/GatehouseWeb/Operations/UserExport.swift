import AuthCore
import Foundation
import HTTPServer
import Store

/// Every user (or every user with a tag) as a JSON or CSV download, read in pages of 500 through
/// the backend's keyset cursor. `Response` holds a buffered body, so the file is built in memory
/// page by page and sent at the end: paged, not streamed. Password hashes are never exported.
struct UserExport: Sendable {
    let database: AppDatabase
    let api: any AuthAPI

    init(database: AppDatabase, api: any AuthAPI) {
        self.database = database
        self.api = api
    }

    init(env: PageEnvironment, api: any AuthAPI) {
        self.init(database: env.database, api: api)
    }

    static let pageSize = 500
    static let csvHeader = ["email", "name", "verified", "tags", "id", "disabled", "createdAt"]

    func response(format: UserImportFile.Format, tag: String?) async throws -> Response {
        let body = try await file(format: format, tag: tag)
        let name = "users" + (tag.map { "-" + $0.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } } ?? "")
        var response = Response(
            status: 200,
            headers: [
                "Content-Type": format == .json ? "application/json; charset=utf-8" : "text/csv; charset=utf-8"
            ], body: body)
        response.headers.replaceOrAdd("Content-Disposition", "attachment; filename=\"\(name).\(format.rawValue)\"")
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        return response
    }

    /// The file's bytes; `progress` hears (users written, users in all) after each page.
    func file(
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
                    body += try encoder.encode(AdminUsersAPI.UserBody(user, tags: tags[user.id] ?? []))
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
