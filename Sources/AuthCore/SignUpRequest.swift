import Foundation

/// What the sign-up form sends.
public struct SignUpRequest: Sendable, Equatable {
    public var email: String
    public var password: String
    public var name: String?
    /// The app asks for the verification mail itself (PocketBase's SDKs call `request-verification`
    /// after `create`): the account still waits for its address to be proven, but nothing is mailed
    /// now. A backend whose own sign-up always mails (InsForge) mails anyway.
    public var appAsksForVerificationMail: Bool

    public init(email: String, password: String, name: String? = nil, appAsksForVerificationMail: Bool = false) {
        self.email = email
        self.password = password
        self.name = name
        self.appAsksForVerificationMail = appAsksForVerificationMail
    }
}
