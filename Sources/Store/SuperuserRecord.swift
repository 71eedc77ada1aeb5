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

/// A row of `console_sessions`: one signed-in console browser or admin API token.
public struct ConsoleSessionRecord: Codable, Sendable, Equatable, FetchableRecord, TableRecord {
    public static let databaseTableName = "console_sessions"

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
