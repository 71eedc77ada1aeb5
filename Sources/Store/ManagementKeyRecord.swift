import Foundation
import GRDB

/// A row of `management_keys`: a key for Descope's management API, kept as its keyed hash.
public struct ManagementKeyRecord: Codable, Sendable, Equatable, FetchableRecord, TableRecord {
    public static let databaseTableName = "management_keys"

    public var id: String
    public var name: String
    public var keyHash: String
    public var createdAt: Date
    public var revokedAt: Date?

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id, name
        case keyHash = "key_hash"
        case createdAt = "created_at"
        case revokedAt = "revoked_at"
    }
}
