import AuthCore
import Foundation
import Store

/// Reading the audit trail: the console's `/_/audit` page and the user page's timeline, and
/// `GET /_/api/audit`. Writing stays with the operation that acted (`AuditTrail`).
public struct AuditLog: Sendable {
    let env: Accounts

    public init(env: Accounts) { self.env = env }

    /// The events matching `filter`, newest first.
    public func events(_ filter: AuditFilter) async throws -> [AuditEventRecord] {
        try await env.database.auditEvents(filter)
    }

    /// Every event type recorded so far, for the filter's choices.
    public func eventTypes() async throws -> [String] {
        try await env.database.auditEventTypes()
    }

    /// Completed and failed sign-ins per hour since `start`, for the sign-in chart.
    public func signInsPerHour(since start: Date) async throws -> [HourlySignIns] {
        try await env.database.signInsPerHour(since: start)
    }

    /// Superusers among the events' actors, by id, so rows name staff by email.
    public func staffEmails(for events: [AuditEventRecord]) async throws -> [String: String] {
        var emails: [String: String] = [:]
        for actor in Set(events.compactMap(\.actor)) {
            if let superuser = try await env.database.superuser(id: actor) { emails[actor] = superuser.email }
        }
        return emails
    }
}
