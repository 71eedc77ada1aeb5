import Foundation

/// What the sign-up form sends.
public struct SignUpRequest: Sendable, Equatable {
    public var email: String
    public var password: String
    public var name: String?
    /// The caller confirms addresses with a link's token (PocketBase's SDKs): a backend that
    /// verifies by code mails the link beside the code.
    public var verificationMailWithLink: Bool

    public init(email: String, password: String, name: String? = nil, verificationMailWithLink: Bool = false) {
        self.email = email
        self.password = password
        self.name = name
        self.verificationMailWithLink = verificationMailWithLink
    }
}
