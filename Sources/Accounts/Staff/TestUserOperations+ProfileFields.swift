import AuthCore
import HTTPServer

extension TestUserOperations {
    /// An account a superuser makes through a compatible API (PocketBase's `records` create):
    /// `createOne`, then the profile fields beyond the name.
    public func createOne(
        email: String, password: String, name: String?, verified: Bool, profile extra: [String: JSONValue], via: String
    ) async throws -> User {
        let user = try await createOne(email: email, password: password, name: name, verified: verified, tag: nil, via: via).user
        return extra.isEmpty ? user : try await api.admin.updateUser(user.id, UserUpdate(profilePatch: extra))
    }
}
