import Foundation

/// InsForge's admin user routes with its admin key: list (with `limit`, `offset`, `search`) and
/// delete. Everything else InsForge's API does not offer from outside.
struct InsForgeAdmin: AuthAdminAPI {
    let backend: InsForgeBackend
    var http: InsForgeHTTP { backend.http }

    private func key() throws -> String {
        guard let key = backend.configuration.adminKey else { throw AuthError.notSupported(.userAdministration) }
        return key
    }

    private struct UserList: Decodable {
        struct Pagination: Decodable { var total: Int }
        var data: [InsForgeAuthReply.UserBody]
        var pagination: Pagination?
    }

    func listUsers(_ query: UserQuery) async throws -> UserPage {
        var items = [
            URLQueryItem(name: "limit", value: "\(query.perPage)"),
            URLQueryItem(name: "offset", value: "\((query.page - 1) * query.perPage)")
        ]
        if let search = query.search, !search.isEmpty { items.append(URLQueryItem(name: "search", value: search)) }
        let list = try await http.json(UserList.self, "GET", "api/auth/users", query: items, bearer: try key())
        let total = list.pagination?.total ?? list.data.count
        return UserPage(
            users: list.data.map(\.user), page: query.page, perPage: query.perPage, totalItems: total,
            nextCursor: query.page * query.perPage < total ? String(query.page + 1) : nil)
    }

    func user(_ id: UserID) async throws -> User {
        struct ProfileReply: Decodable {
            var id: String
            var profile: [String: JSONValue]?
        }
        // InsForge shows a user's public profile to anyone; the rest of the account is theirs.
        let reply = try await http.json(ProfileReply.self, "GET", "api/auth/profiles/\(id.rawValue)", bearer: try key())
        return User(
            id: UserID(reply.id), email: "", emailVerified: false, profile: Profile(reply.profile ?? [:]),
            createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
    }

    func deleteUser(_ id: UserID) async throws {
        _ = try await deleteUsers([id])
    }

    func deleteUsers(_ ids: [UserID]) async throws -> Int {
        struct Deleted: Decodable { var deletedCount: Int? }
        let reply = try await http.json(
            Deleted.self, "DELETE", "api/auth/users", bearer: try key(),
            body: ["userIds": .array(ids.map { .string($0.rawValue) })])
        return reply.deletedCount ?? ids.count
    }

    func createUser(_ new: NewUser) async throws -> User { throw AuthError.notSupported(.userAdministration) }
    func updateUser(_ id: UserID, _ update: UserUpdate) async throws -> User { throw AuthError.notSupported(.userAdministration) }
    func impersonate(_ id: UserID, duration: TimeInterval, actor: String) async throws -> AuthSession {
        throw AuthError.notSupported(.impersonation)
    }
    func linkExternalAuth(userID: UserID, provider: String, providerID: String) async throws -> ExternalAuth {
        throw AuthError.notSupported(.externalAuths)
    }
    func externalAuths(of userID: UserID) async throws -> [ExternalAuth] { [] }
    func externalAuth(id: String) async throws -> ExternalAuth? { nil }
    func unlinkExternalAuth(of userID: UserID, provider: String) async throws { throw AuthError.notSupported(.externalAuths) }
}
