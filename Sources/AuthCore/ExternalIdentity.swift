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
    /// Whether a first sign-in may attach this identity to an existing account with the same
    /// verified address. False for the built-in test provider: anyone at its chooser can claim
    /// any address, so its people reach an existing account only through a signed-in "link".
    public var mayLinkByEmail: Bool

    public init(
        provider: String, subject: String, email: String? = nil, emailVerified: Bool = false,
        name: String? = nil, avatarURL: String? = nil, mayLinkByEmail: Bool = true
    ) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.avatarURL = avatarURL
        self.mayLinkByEmail = mayLinkByEmail
    }
}
