import AuthCore
import Foundation
import ServerSeam

/// Reading accounts without changing them — one account, a page of them, the feed of their
/// changes — for the front-ends that show them (who may see which is the front-end's rule, e.g.
/// `PocketBaseCaller.mayView`).
public struct UserDirectory: Sendable {
    let env: Accounts

    public init(env: Accounts) { self.env = env }

    /// The account `id`; throws `.userNotFound` when there is none.
    public func user(_ id: UserID) async throws -> User {
        try await env.backend.admin.user(id)
    }

    /// The account at exactly `email` (normalized), nil for none: the store's unique index, not a search.
    public func user(email: String) async throws -> User? {
        try await env.backend.admin.user(email: email)
    }

    /// Whether account `id` has a password (one made by a mailed code or a provider has none until
    /// it sets one); true where the backend keeps the passwords (Gatehouse cannot tell).
    public func hasPassword(_ id: UserID) async throws -> Bool {
        try await env.database.hasPassword(userID: id) ?? true
    }

    /// One page of accounts; throws `.validation` for a filter or sort the backend cannot read.
    public func page(_ query: UserQuery) async throws -> UserPage {
        try await env.backend.admin.listUsers(query)
    }

    /// The feed of account changes, when the backend has one.
    public func changes() -> (any UserChangeFeed)? {
        guard env.capabilities.contains(.userChanges) else { return nil }
        return try? env.backend.admin.userChanges()
    }
}
