import Foundation

/// An account as every backend reports it.
public struct User: Sendable, Hashable, Codable {
    public var id: UserID
    public var email: String
    public var emailVerified: Bool
    public var profile: Profile
    public var disabled: Bool
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: UserID, email: String, emailVerified: Bool, profile: Profile, disabled: Bool = false,
        createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.email = email
        self.emailVerified = emailVerified
        self.profile = profile
        self.disabled = disabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
