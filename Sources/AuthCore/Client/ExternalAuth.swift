import Foundation

/// A link between an account and an identity at an OAuth provider (PocketBase's `_externalAuths` record).
public struct ExternalAuth: Sendable, Hashable, Codable {
    public var id: String
    public var userID: UserID
    public var provider: String
    public var providerID: String
    public var createdAt: Date
    /// The address the provider gave when the link was made (none from a backend that keeps none).
    public var email: String?

    public init(
        id: String, userID: UserID, provider: String, providerID: String, createdAt: Date, email: String? = nil
    ) {
        self.id = id
        self.userID = userID
        self.provider = provider
        self.providerID = providerID
        self.createdAt = createdAt
        self.email = email
    }
}

/// The sign-in methods a backend offers (PocketBase's `auth-methods`).
public struct AuthMethods: Sendable, Hashable, Codable {
    public var password: Bool
    public var emailCode: Bool
    public var emailLink: Bool
    /// OAuth provider names, e.g. `github`.
    public var oauth2Providers: [String]

    public init(password: Bool, emailCode: Bool, emailLink: Bool, oauth2Providers: [String]) {
        self.password = password
        self.emailCode = emailCode
        self.emailLink = emailLink
        self.oauth2Providers = oauth2Providers
    }
}
