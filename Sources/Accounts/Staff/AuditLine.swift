import AuthCore
import Foundation
import Store

/// One line of the audit trail as the console and the admin API read it: what happened, who did
/// it, to whom, from where and when.
public struct AuditLine: Sendable, Equatable {
    /// Increasing with time: the audit page pages by it.
    public var id: Int64
    /// A dotted name such as `sign_in.completed` (`AuditEvent`'s raw value).
    public var type: String
    /// Who did it (a user or superuser id), when known.
    public var actor: String?
    /// Whom or what it concerns (usually a user id).
    public var subject: String?
    public var ip: String?
    public var createdAt: Date
    /// Extra details; never passwords, codes or tokens.
    public var data: [String: JSONValue]

    init(_ row: AuditEventRecord) {
        id = row.id
        type = row.type
        actor = row.actor
        subject = row.subject
        ip = row.ip
        createdAt = row.createdAt
        data = row.data
    }
}
