import AuthCore
import Foundation
import GRDB

/// A row of `sessions`: one signed-in browser or API client, for the embedded or a remote backend.
public struct SessionRecord: Codable, Sendable, Equatable, FetchableRecord, TableRecord {
    public static let databaseTableName = "sessions"

    public var id: Int64
    /// `KeyedHash.hex(token)` of the cookie or bearer token.
    public var tokenHash: String
    public var refreshTokenHash: String?
    /// The backend's id of the user (no foreign key: remote backends' users are not in `users`).
    public var userID: UserID
    public var userAgent: String?
    public var ip: String?
    public var createdAt: Date
    public var lastUsedAt: Date
    public var expiresAt: Date
    public var revokedAt: Date?
    /// The superuser acting as this user, when the session is an impersonation.
    public var impersonator: String?
    /// Why the impersonator opened the account, and the ticket's link, when they said.
    public var impersonationReason: String? = nil
    public var impersonationTicket: String? = nil

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id, ip, impersonator
        case impersonationReason = "impersonation_reason"
        case impersonationTicket = "impersonation_ticket"
        case tokenHash = "token_hash"
        case refreshTokenHash = "refresh_token_hash"
        case userID = "user_id"
        case userAgent = "user_agent"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case expiresAt = "expires_at"
        case revokedAt = "revoked_at"
    }

    /// True when the session may still be used at `now`: not revoked and not expired.
    public func isActive(at now: Date) -> Bool {
        revokedAt == nil && expiresAt > now
    }
}

extension SessionRecord {
    /// Reads the columns by name: GRDB's `Decodable` path costs a keyed decoder per row, and a
    /// session row is read on every signed-in request.
    public init(row: Row) throws {
        try self.init(columns: row)
    }

    init(columns row: some ColumnValues) throws {
        id = try row.int64(CodingKeys.id.rawValue)
        tokenHash = try row.string(CodingKeys.tokenHash.rawValue)
        refreshTokenHash = try row.optionalString(CodingKeys.refreshTokenHash.rawValue)
        userID = UserID(try row.string(CodingKeys.userID.rawValue))
        userAgent = try row.optionalString(CodingKeys.userAgent.rawValue)
        ip = try row.optionalString(CodingKeys.ip.rawValue)
        createdAt = try row.date(CodingKeys.createdAt.rawValue)
        lastUsedAt = try row.date(CodingKeys.lastUsedAt.rawValue)
        expiresAt = try row.date(CodingKeys.expiresAt.rawValue)
        revokedAt = try row.optionalDate(CodingKeys.revokedAt.rawValue)
        impersonator = try row.optionalString(CodingKeys.impersonator.rawValue)
        impersonationReason = try row.optionalString(CodingKeys.impersonationReason.rawValue)
        impersonationTicket = try row.optionalString(CodingKeys.impersonationTicket.rawValue)
    }
}
