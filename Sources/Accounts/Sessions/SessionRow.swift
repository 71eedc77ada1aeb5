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

    /// A row of the one `sessions` table, whoever holds it.
    init(_ row: some StoredSessionRow) {
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
}

/// What every row of `sessions` has that the pages show, read from a person's row (`SessionRecord`)
/// or a superuser's (`ConsoleSessionRecord`: never an impersonation).
protocol StoredSessionRow {
    var id: Int64 { get }
    var userAgent: String? { get }
    var ip: String? { get }
    var createdAt: Date { get }
    var lastUsedAt: Date { get }
    var expiresAt: Date { get }
    var revokedAt: Date? { get }
    var impersonator: String? { get }
    var impersonationReason: String? { get }
    var impersonationTicket: String? { get }
}

extension SessionRecord: StoredSessionRow {}

extension ConsoleSessionRecord: StoredSessionRow {
    var impersonator: String? { nil }
    var impersonationReason: String? { nil }
    var impersonationTicket: String? { nil }
}
