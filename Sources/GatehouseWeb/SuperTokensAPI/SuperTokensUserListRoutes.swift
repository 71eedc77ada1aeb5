import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The core's user listing: `GET /users` (newest or oldest first, paginated) and `GET /users/count`
/// (`get_users_newest_first`, `get_users_oldest_first`, `get_user_count`). Every Gatehouse account
/// signs in with the recipes the core offers (`emailpassword`, `passwordless`), so
/// `includeRecipeIds` narrows the list only when it names neither: the answer is then empty.
struct SuperTokensUserListRoutes: Sendable {
    let core: SuperTokensCore
    /// The core's default and largest page.
    static let defaultLimit = 100
    static let maximumLimit = 500
    static let recipes: Set<String> = ["emailpassword", "passwordless"]

    func register(on router: inout Router) {
        core.on(&router, .get, "/users", tenantScoped: true, list)
        core.on(&router, .get, "/users/count", tenantScoped: true) { request, _ in
            guard try Self.includesGatehouseAccounts(request) else { return SuperTokensCore.status("OK", ["count": .number(0)]) }
            let page = try await UserDirectory(env: core.env.accounts).page(UserQuery(perPage: 1))
            return SuperTokensCore.status("OK", ["count": .number(Double(page.totalItems))])
        }
    }

    private func list(_ request: Request, _: [String: JSONValue]) async throws -> Response {
        let order = try request.query.single("timeJoinedOrder") ?? "ASC"
        guard order == "ASC" || order == "DESC" else { throw CoreAnswer(400, "timeJoinedOrder can be either ASC OR DESC") }
        let limit = try Self.limit(request)
        guard try Self.includesGatehouseAccounts(request) else { return SuperTokensCore.status("OK", ["users": .array([])]) }
        var query = UserQuery(perPage: limit, sort: order == "DESC" ? .newest : .oldest)
        query.skipTotal = true
        switch try Self.position(request) {
        case .page(let page): query.page = page
        case .after(let cursor): query.cursor = cursor
        }
        let found = try await UserDirectory(env: core.env.accounts).page(query)
        var answer: [String: JSONValue] = ["users": .array(found.users.map { SuperTokensUser(user: $0).json })]
        // Where the next page starts: after the last account shown when the backend says so (sign-ups
        // in between do not shift it), else by number while pages are full.
        if let cursor = found.nextCursor {
            answer["nextPaginationToken"] = .string(Self.token(.after(cursor)))
        } else if found.users.count == limit, query.cursor == nil {
            answer["nextPaginationToken"] = .string(Self.token(.page(query.page + 1)))
        }
        return SuperTokensCore.status("OK", answer)
    }

    /// `limit`: 1 to 500, 100 when absent (the core's 400 otherwise).
    private static func limit(_ request: Request) throws -> Int {
        guard let text = try request.query.single("limit") else { return defaultLimit }
        guard let limit = Int(text), limit >= 1 else {
            throw CoreAnswer(400, "limit must be a positive integer with min value 1")
        }
        guard limit <= maximumLimit else { throw CoreAnswer(400, "max limit allowed is \(maximumLimit)") }
        return limit
    }

    /// Where a page starts, as a `paginationToken` (this core's own) names it.
    enum Position {
        case page(Int)
        case after(String)
    }

    /// The position a `paginationToken` from an earlier answer names; the first page without one.
    private static func position(_ request: Request) throws -> Position {
        guard let token = try request.query.single("paginationToken") else { return .page(1) }
        guard let data = Data(base64Encoded: token), let text = String(data: data, encoding: .utf8) else {
            throw CoreAnswer(400, "invalid pagination token")
        }
        if text.hasPrefix("after:"), text.count > 6 { return .after(String(text.dropFirst(6))) }
        guard text.hasPrefix("page:"), let page = Int(text.dropFirst(5)), page >= 1 else {
            throw CoreAnswer(400, "invalid pagination token")
        }
        return .page(page)
    }

    private static func token(_ position: Position) -> String {
        switch position {
        case .page(let page): Data("page:\(page)".utf8).base64EncodedString()
        case .after(let cursor): Data("after:\(cursor)".utf8).base64EncodedString()
        }
    }

    /// False when `includeRecipeIds` names recipes and none of them is one Gatehouse's accounts use.
    private static func includesGatehouseAccounts(_ request: Request) throws -> Bool {
        guard let named = try request.query.single("includeRecipeIds"), !named.isEmpty else { return true }
        return named.split(separator: ",").contains { recipes.contains(String($0)) }
    }
}
