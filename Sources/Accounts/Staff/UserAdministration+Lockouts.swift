import AuthCore
import Foundation

/// An account's sign-in back-offs as support staff see and lift them: the person told "too many
/// tries, wait" can be let in at once, and the lifting is recorded (`admin.user.unlocked`).
extension UserAdministration {
    /// The back-offs running now against the account's address, one per source.
    public func lockouts(of user: User) async throws -> [Lockout] {
        try await env.budgets.lockouts(of: user.email)
    }

    /// Lifts the account's back-off from `source` (from every source when nil).
    public func unlock(_ user: User, source: String?) async throws {
        try await env.budgets.unlock(user.email, source: source)
        var data: [String: JSONValue] = ["via": .string(via)]
        if let source { data["source"] = .string(source) }
        await env.audit.record(
            .adminUserUnlocked, actor: staff.superuser.id, subject: user.id.rawValue, request: request, data: data)
    }
}
