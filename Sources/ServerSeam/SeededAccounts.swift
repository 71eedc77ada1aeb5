import AuthCore

/// An account as a seed file describes it (`gatehouse seed`, `serve --seed`): its id pinned when
/// given, its password in the clear (hashed as it is made), its authenticator app's key, its
/// provider links.
public struct SeededAccount: Sendable {
    public var id: UserID?
    public var email: String
    public var password: String?
    public var verified: Bool
    public var profile: Profile
    /// The authenticator app's key as base32; the app is on when given.
    public var totpSecret: String?
    public var providers: [ExternalIdentity]

    public init(
        id: UserID?, email: String, password: String?, verified: Bool, profile: Profile, totpSecret: String?,
        providers: [ExternalIdentity]
    ) {
        (self.id, self.email, self.password, self.verified) = (id, email, password, verified)
        (self.profile, self.totpSecret, self.providers) = (profile, totpSecret, providers)
    }
}

/// An admin side that makes seeded accounts whole (the embedded one): the account, its key and
/// its links, or nothing.
public protocol SeededAccounts: Sendable {
    /// Makes `account`; `AuthError.validation` naming each field at fault (`id` malformed or taken,
    /// `email` taken, `password` too weak, `totpSecret` not base32) and nothing written.
    func seed(_ account: SeededAccount) async throws -> User
}

extension AuthAdminAPI {
    /// Makes a seeded account whole; `.notSupported(.userAdministration)` on an admin side that
    /// cannot pin ids, keys and links (a remote backend).
    public func seed(_ account: SeededAccount) async throws -> User {
        guard let seeded = self as? any SeededAccounts else { throw AuthError.notSupported(.userAdministration) }
        return try await seeded.seed(account)
    }
}
