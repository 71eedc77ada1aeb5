import AuthCore

/// An admin side that finds an account by its normalized address in one read (the embedded
/// store's unique index on it). Any other admin side is searched page by page for the address.
public protocol AccountsByAddress: Sendable {
    /// The account at `email` in any letter case or surrounding whitespace; nil for none.
    func exactUser(email: String) async throws -> User?
}

extension AuthAdminAPI {
    /// The account at exactly `email` (normalized), nil for none: through `AccountsByAddress` when
    /// the admin side has it, else every page of a search for the address, however many accounts
    /// contain it.
    public func user(email: String) async throws -> User? {
        if let lookup = self as? any AccountsByAddress { return try await lookup.exactUser(email: email) }
        let normalized = EmailAddress.normalize(email)
        var query = UserQuery(search: normalized, perPage: 100)
        query.skipTotal = true
        var previousFirst: UserID?
        while true {
            let page = try await listUsers(query)
            if let found = page.users.first(where: { EmailAddress.normalize($0.email) == normalized }) { return found }
            // A short page is the last; a page that repeats the one before means the side ignores paging.
            guard page.users.count == query.perPage, page.users.first?.id != previousFirst else { return nil }
            previousFirst = page.users.first?.id
            if let cursor = page.nextCursor { query.cursor = cursor } else { query.page += 1 }
        }
    }
}
