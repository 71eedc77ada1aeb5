import Foundation
import Store

/// A session as the pages and APIs show it — where and when it began, when it was last used and
/// ends — without the hashes that find it.
public struct SessionRow: Sendable, Equatable {
    public var id: Int64
    public var userAgent: String?
    public var ip: String?
    public var createdAt: Date
    public var lastUsedAt: Date
    public var expiresAt: Date
    public var revokedAt: Date?
    /// The superuser acting as the person, when the session is an impersonation.
    public var impersonator: String?
    /// Why the impersonator opened the account, and the ticket's link, when they said
    /// (`SignedIn.impersonationReason` reads them as one value).
    var impersonationReason: String?
    var impersonationTicket: String?

    init(_ row: SessionRecord) {
        id = row.id
        userAgent = row.userAgent
        ip = row.ip
        createdAt = row.createdAt
        lastUsedAt = row.lastUsedAt
        expiresAt = row.expiresAt
        revokedAt = row.revokedAt
        impersonator = row.impersonator
        impersonationReason = row.impersonationReason
        impersonationTicket = row.impersonationTicket
    }

    init(_ row: ConsoleSessionRecord) {
        id = row.id
        userAgent = row.userAgent
        ip = row.ip
        createdAt = row.createdAt
        lastUsedAt = row.lastUsedAt
        expiresAt = row.expiresAt
        revokedAt = row.revokedAt
    }
}
