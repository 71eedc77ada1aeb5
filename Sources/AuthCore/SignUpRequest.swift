import Foundation

/// What the sign-up form sends.
public struct SignUpRequest: Sendable, Equatable {
    public var email: String
    public var password: String
    public var name: String?

    public init(email: String, password: String, name: String? = nil) {
        self.email = email
        self.password = password
        self.name = name
    }
}
