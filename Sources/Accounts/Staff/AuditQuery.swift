import Foundation
import Store

/// Which audit lines to read (`AuditLog.events`); every condition is optional.
public struct AuditQuery: Sendable, Equatable {
    public var type: String?
    public var actor: String?
    public var subject: String?
    var from: Date?
    var to: Date?
    /// Keyset paging: only lines older than this id.
    public var beforeID: Int64?
    public var limit: Int

    public init(
        type: String? = nil, actor: String? = nil, subject: String? = nil, from: Date? = nil, to: Date? = nil,
        beforeID: Int64? = nil, limit: Int = 50
    ) {
        self.type = type
        self.actor = actor
        self.subject = subject
        self.from = from
        self.to = to
        self.beforeID = beforeID
        self.limit = limit
    }

    /// The store's filter for this query.
    var filter: AuditFilter {
        AuditFilter(type: type, actor: actor, subject: subject, from: from, to: to, beforeID: beforeID, limit: limit)
    }
}
