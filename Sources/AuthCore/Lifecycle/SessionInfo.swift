import Foundation

/// One place an account is signed in, as a backend that keeps sessions lists it.
public struct SessionInfo: Sendable, Hashable, Codable {
    public var id: String
    public var userAgent: String?
    public var ip: String?
    public var createdAt: Date
    public var lastUsedAt: Date
    /// The session the list was asked with.
    public var current: Bool

    public init(id: String, userAgent: String?, ip: String?, createdAt: Date, lastUsedAt: Date, current: Bool) {
        self.id = id
        self.userAgent = userAgent
        self.ip = ip
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.current = current
    }
}
