import Foundation
import Store

/// A key for Descope's management API as the console and the audit log show it: never its secret.
public struct ManagementKey: Sendable, Equatable {
    public let id: String
    public let name: String
    public let createdAt: Date
    public let revokedAt: Date?

    public var isLive: Bool { revokedAt == nil }

    init(id: String, name: String, createdAt: Date, revokedAt: Date?) {
        (self.id, self.name, self.createdAt, self.revokedAt) = (id, name, createdAt, revokedAt)
    }

    init(_ record: ManagementKeyRecord) {
        self.init(id: record.id, name: record.name, createdAt: record.createdAt, revokedAt: record.revokedAt)
    }
}
