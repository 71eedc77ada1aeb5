import AuthCore
import Foundation
import GRDB

/// A row of `audit_events`: something a person or the system did, for the console's audit log.
public struct AuditEventRecord: Codable, Sendable, Equatable, FetchableRecord, TableRecord {
    public static let databaseTableName = "audit_events"

    public var id: Int64
    /// A dotted name such as `user.signed_in` or `session.impersonated`.
    public var type: String
    /// Who did it (a user or superuser id), when known.
    public var actor: String?
    /// Whom or what it concerns (usually a user id).
    public var subject: String?
    public var ip: String?
    public var createdAt: Date
    /// Extra details as a JSON object; never passwords, codes or tokens.
    public var data: [String: JSONValue]

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id, type, actor, subject, ip, data
        case createdAt = "created_at"
    }
}
