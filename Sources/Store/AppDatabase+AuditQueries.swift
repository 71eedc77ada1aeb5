import Foundation
import GRDB

/// What the console's audit log filters on; every field is optional.
public struct AuditFilter: Sendable, Equatable {
    public var type: String?
    public var actor: String?
    public var subject: String?
    public var from: Date?
    public var to: Date?
    /// Keyset paging: only events older than this id.
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
}

/// Sign-ins in one hour, for the console chart.
public struct HourlySignIns: Sendable, Equatable {
    /// The hour's start, UTC.
    public var hour: Date
    public var completed: Int
    public var failed: Int
}

extension AppDatabase {
    /// Events matching `filter`, newest first.
    public func auditEvents(_ filter: AuditFilter) async throws -> [AuditEventRecord] {
        try await pool.read { db in
            var request = AuditEventRecord.order(AuditEventRecord.CodingKeys.id.desc).limit(max(0, filter.limit))
            typealias Column = AuditEventRecord.CodingKeys
            if let type = filter.type { request = request.filter(Column.type == type) }
            if let actor = filter.actor { request = request.filter(Column.actor == actor) }
            if let subject = filter.subject { request = request.filter(Column.subject == subject) }
            if let from = filter.from { request = request.filter(Column.createdAt >= from.storedText) }
            if let to = filter.to { request = request.filter(Column.createdAt < to.storedText) }
            if let beforeID = filter.beforeID { request = request.filter(Column.id < beforeID) }
            return try request.fetchAll(db)
        }
    }

    /// Every event type seen so far, for the filter's choices.
    public func auditEventTypes() async throws -> [String] {
        try await pool.read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT type FROM audit_events ORDER BY type")
        }
    }

    /// Completed and failed sign-ins per hour since `start` (hours without any are left out).
    public func signInsPerHour(since start: Date) async throws -> [HourlySignIns] {
        try await pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT strftime('%Y-%m-%d %H:00:00.000', created_at) AS hour,
                           SUM(type = 'sign_in.completed') AS completed,
                           SUM(type = 'sign_in.failed') AS failed
                    FROM audit_events
                    WHERE created_at >= ? AND type IN ('sign_in.completed', 'sign_in.failed')
                    GROUP BY hour ORDER BY hour
                    """, arguments: [start.storedText])
            return rows.compactMap { row in
                guard let hour = row.storedDate("hour") else { return nil }
                return HourlySignIns(hour: hour, completed: row["completed"], failed: row["failed"])
            }
        }
    }
}
