import AuthCore
import Store

extension UserAdministration {
    /// The account's passkeys (none where the backend keeps none), for the console's user page.
    public func passkeys(of user: User) async throws -> [PasskeySummary] {
        guard env.capabilities.contains(.passkeys) else { return [] }
        return try await env.database.passkeys(of: user.id).map(PasskeySummary.init)
    }

    /// Whether the account's passkey is its only way to sign in (the rule that stops a person
    /// deleting it), so the console can say so before staff do.
    public func passkeyIsOnlyWayIn(of user: User) async throws -> Bool {
        guard env.capabilities.contains(.passkeys) else { return false }
        return try await env.database.passkeyIsOnlyWayIn(of: user.id)
    }

    /// Deletes one of the account's passkeys (a lost or shared device), audited as
    /// `admin.user.passkey_deleted` with its name; false when the account has no such passkey.
    public func deletePasskey(_ id: Int64, of user: User) async throws -> Bool {
        guard let deleted = try await env.database.deletePasskey(id: id, of: .user(user.id)) else { return false }
        await env.audit.record(
            .adminUserPasskeyDeleted, actor: staff.superuser.id, subject: user.id.rawValue, request: request,
            data: ["via": .string(via), "passkey": .number(Double(id)), "name": .string(deleted.name)])
        return true
    }
}
