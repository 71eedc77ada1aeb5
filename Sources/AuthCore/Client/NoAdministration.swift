import Foundation

/// The administration of a backend whose client holds no admin credentials (Descope's management
/// key, a SuperTokens app backend's core API key): every call refuses.
struct NoAdministration: AuthAdminAPI {
    func listUsers(_ query: UserQuery) async throws -> UserPage { throw AuthError.notSupported(.userAdministration) }
    func user(_ id: UserID) async throws -> User { throw AuthError.notSupported(.userAdministration) }
    func createUser(_ new: NewUser) async throws -> User { throw AuthError.notSupported(.userAdministration) }
    func updateUser(_ id: UserID, _ update: UserUpdate) async throws -> User { throw AuthError.notSupported(.userAdministration) }
    func deleteUser(_ id: UserID) async throws { throw AuthError.notSupported(.userAdministration) }
    func deleteUsers(_ ids: [UserID]) async throws -> Int { throw AuthError.notSupported(.userAdministration) }
    func impersonate(_ id: UserID, duration: TimeInterval, actor: String) async throws -> AuthSession {
        throw AuthError.notSupported(.impersonation)
    }
    func linkExternalAuth(userID: UserID, provider: String, providerID: String) async throws -> ExternalAuth {
        throw AuthError.notSupported(.externalAuths)
    }
    func externalAuths(of userID: UserID) async throws -> [ExternalAuth] { throw AuthError.notSupported(.externalAuths) }
    func externalAuth(id: String) async throws -> ExternalAuth? { throw AuthError.notSupported(.externalAuths) }
    func unlinkExternalAuth(of userID: UserID, provider: String) async throws { throw AuthError.notSupported(.externalAuths) }
}
