import Store

/// A person the built-in test provider's chooser offers (`TestIdentityProvider`).
public struct TestIdentity: Sendable, Equatable {
    public var id: Int64
    var provider: String
    /// The provider's `sub` for the person.
    public var subject: String
    public var email: String
    public var emailVerified: Bool
    public var name: String?

    init(_ row: TestIdentityRecord) {
        id = row.id
        provider = row.provider
        subject = row.subject
        email = row.email
        emailVerified = row.emailVerified
        name = row.name
    }
}
