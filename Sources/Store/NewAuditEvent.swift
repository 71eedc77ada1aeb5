import AuthCore
import Foundation

/// An audit event about to be recorded.
public struct NewAuditEvent: Sendable, Equatable {
    public var type: String
    public var actor: String?
    public var subject: String?
    public var ip: String?
    public var data: [String: JSONValue]
    public var at: Date

    public init(
        type: String, actor: String? = nil, subject: String? = nil, ip: String? = nil,
        data: [String: JSONValue] = [:], at: Date
    ) {
        self.type = type
        self.actor = actor
        self.subject = subject
        self.ip = ip
        self.data = data
        self.at = at
    }
}
