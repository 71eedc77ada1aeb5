import Foundation

/// Who a provider says signed in: the stable key is (provider, subject); the rest is what the
/// provider reports, used to create or link an account.
public struct ExternalIdentity: Sendable, Equatable {
    public var provider: String
    public var subject: String
    public var email: String?
    /// Only a provider's explicit claim counts; OAuth 2.0 providers without one report false.
    public var emailVerified: Bool
    public var name: String?
    public var avatarURL: String?
    /// Made up at the built-in test provider's chooser, where anyone types any subject and claims
    /// any address. Such an identity never reaches an existing account by email (only through a
    /// signed-in "link"), never vouches for an address, and matches only links made the same way:
    /// a provider switched from live to test cannot sign anyone in through its live links.
    public var fromTestProvider: Bool

    public init(
        provider: String, subject: String, email: String? = nil, emailVerified: Bool = false,
        name: String? = nil, avatarURL: String? = nil, fromTestProvider: Bool = false
    ) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.avatarURL = avatarURL
        self.fromTestProvider = fromTestProvider
    }
}
