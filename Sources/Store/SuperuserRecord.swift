import Foundation
import GRDB

/// A row of `superusers`: a staff account that signs in to the console.
public struct SuperuserRecord: Codable, Sendable, Equatable, FetchableRecord, TableRecord {
    public static let databaseTableName = "superusers"

    public var id: String
    public var email: String
    public var passwordHash: String
    public var createdAt: Date
    public var updatedAt: Date

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id, email
        case passwordHash = "password_hash"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

/// A superuser's row of `sessions` (`superuser_id` set, `user_id` NULL): one signed-in console
/// browser or admin API token.
public struct ConsoleSessionRecord: Codable, Sendable, Equatable, FetchableRecord, TableRecord {
    public static let databaseTableName = "sessions"

    public var id: Int64
    public var tokenHash: String
    public var superuserID: String
    public var userAgent: String?
    public var ip: String?
    public var createdAt: Date
    public var lastUsedAt: Date
    public var expiresAt: Date
    public var revokedAt: Date?

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id, ip
        case tokenHash = "token_hash"
        case superuserID = "superuser_id"
        case userAgent = "user_agent"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case expiresAt = "expires_at"
        case revokedAt = "revoked_at"
    }
}

extension SuperuserRecord {
    /// Reads the columns by name, for GRDB's rows and the hot reads alike.
    public init(row: Row) throws {
        try self.init(columns: row)
    }

    init(columns row: some ColumnValues) throws {
        id = try row.string(CodingKeys.id.rawValue)
        email = try row.string(CodingKeys.email.rawValue)
        passwordHash = try row.string(CodingKeys.passwordHash.rawValue)
        createdAt = try row.date(CodingKeys.createdAt.rawValue)
        updatedAt = try row.date(CodingKeys.updatedAt.rawValue)
    }
}

extension ConsoleSessionRecord {
    /// Reads the columns by name, for GRDB's rows and the hot reads alike (every console request).
    public init(row: Row) throws {
        try self.init(columns: row)
    }

    init(columns row: some ColumnValues) throws {
        id = try row.int64(CodingKeys.id.rawValue)
        tokenHash = try row.string(CodingKeys.tokenHash.rawValue)
        superuserID = try row.string(CodingKeys.superuserID.rawValue)
        userAgent = try row.optionalString(CodingKeys.userAgent.rawValue)
        ip = try row.optionalString(CodingKeys.ip.rawValue)
        createdAt = try row.date(CodingKeys.createdAt.rawValue)
        lastUsedAt = try row.date(CodingKeys.lastUsedAt.rawValue)
        expiresAt = try row.date(CodingKeys.expiresAt.rawValue)
        revokedAt = try row.optionalDate(CodingKeys.revokedAt.rawValue)
    }
}
