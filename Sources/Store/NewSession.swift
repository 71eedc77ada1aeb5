import AuthCore
import Foundation

/// What the web layer knows when it opens a session; the store adds the id and timestamps.
public struct NewSession: Sendable, Equatable {
    public var tokenHash: String
    public var refreshTokenHash: String?
    public var userID: UserID
    public var userAgent: String?
    public var ip: String?
    public var createdAt: Date
    public var expiresAt: Date
    public var impersonator: String?

    public init(
        tokenHash: String, refreshTokenHash: String? = nil, userID: UserID, userAgent: String?, ip: String?,
        createdAt: Date, expiresAt: Date, impersonator: String? = nil
    ) {
        self.tokenHash = tokenHash
        self.refreshTokenHash = refreshTokenHash
        self.userID = userID
        self.userAgent = userAgent
        self.ip = ip
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.impersonator = impersonator
    }
}
