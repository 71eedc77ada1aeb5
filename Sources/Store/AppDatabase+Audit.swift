import Foundation
import GRDB

extension AppDatabase {
    public func recordAudit(_ event: NewAuditEvent) async throws {
        try await pool.write { db in try Self.recordAudit(event, in: db) }
    }

    /// Records `event` inside the caller's transaction, for a rule whose audit row must land with it.
    static func recordAudit(_ event: NewAuditEvent, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO audit_events (type, actor, subject, ip, created_at, data) VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [event.type, event.actor, event.subject, event.ip, event.at.storedText, try Self.json(event.data)])
    }

    /// Up to `limit` events, newest first; only those about `subject` when given.
    public func auditEvents(subject: String?, limit: Int) async throws -> [AuditEventRecord] {
        try await pool.read { db in
            var request = AuditEventRecord.order(AuditEventRecord.CodingKeys.id.desc).limit(max(0, limit))
            if let subject {
                request = request.filter(AuditEventRecord.CodingKeys.subject == subject)
            }
            return try request.fetchAll(db)
        }
    }
}
