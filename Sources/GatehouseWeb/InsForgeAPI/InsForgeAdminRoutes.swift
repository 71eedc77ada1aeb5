import Accounts
import AuthCore
import Foundation
import HTTPServer

/// InsForge's admin user routes, for a superuser's token (`POST /_/api/auth`) where InsForge takes
/// its admin API key: `GET /api/auth/users` (`limit`, `offset`, `search`) and `DELETE /api/auth/users`
/// (`{"userIds": […]}`), through the same operations as the console.
struct InsForgeAdminRoutes: Sendable {
    static let maximumLimit = 500

    let api: InsForgeAPI
    var env: PageEnvironment { api.env }

    func register(on router: inout Router) {
        api.on(&router, .get, "/api/auth/users") { request, _ in
            _ = try await staff(request)
            let limit = min(max(Int(try request.query.single("limit") ?? "") ?? 10, 1), Self.maximumLimit)
            let offset = max(Int(try request.query.single("offset") ?? "") ?? 0, 0)
            var query = UserQuery(search: try request.query.single("search"), perPage: limit, sort: .newest)
            // Offsets that are not a whole number of pages: read the pages around them.
            query.page = offset / limit + 1
            var page = try await UserDirectory(env: env.accounts).page(query)
            var users = Array(page.users.dropFirst(offset % limit))
            if offset % limit != 0, users.count < limit, page.nextCursor != nil || page.totalItems > offset + users.count {
                query.page += 1
                page = try await UserDirectory(env: env.accounts).page(query)
                users += page.users.prefix(limit - users.count)
            }
            return try .json(
                UserList(
                    data: users.map { InsForgeUser($0, providers: []) },
                    pagination: .init(offset: offset, limit: limit, total: page.totalItems)))
        }
        api.on(&router, .delete, "/api/auth/users") { request, _ in
            let staff = try await staff(request)
            guard case .array(let values)? = try InsForgeAPI.object(request)["userIds"] else {
                throw InsForgeAnswer(400, "INVALID_INPUT", "userIds: send the ids of the users to delete.")
            }
            let ids = values.compactMap { value -> UserID? in if case .string(let id) = value { UserID(id) } else { nil } }
            guard ids.count == values.count, !ids.isEmpty else {
                throw InsForgeAnswer(400, "INVALID_INPUT", "userIds: every id must be a string.")
            }
            let operations = TestUserOperations(env: env.accounts, staff: staff, request: request)
            let outcome = try await operations.delete(ids)
            return try .json(Deleted(message: "Users deleted successfully", deletedCount: outcome))
        }
    }

    private func staff(_ request: Request) async throws -> Staff {
        guard let staff = await env.console.fromBearer(request) else {
            throw InsForgeAnswer(
                401, "AUTH_UNAUTHORIZED", "Send a superuser token (POST /_/api/auth) as Authorization: Bearer TOKEN.")
        }
        return staff
    }
}

private struct UserList: Encodable {
    struct Pagination: Encodable {
        var offset, limit, total: Int
    }
    var data: [InsForgeUser]
    var pagination: Pagination
}

private struct Deleted: Encodable {
    var message: String
    var deletedCount: Int
}
