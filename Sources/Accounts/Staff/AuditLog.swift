import AuthCore
import Foundation
import Store

/// Reading the audit trail: the console's `/_/audit` page and the user page's timeline, and
/// `GET /_/api/audit`. Writing stays with the operation that acted (`AuditTrail`).
public struct AuditLog: Sendable {
    let env: Accounts

    public init(env: Accounts) { self.env = env }

    /// The events matching `filter`, newest first.
    public func events(_ query: AuditQuery) async throws -> [AuditLine] {
        try await env.database.auditEvents(query.filter).map(AuditLine.init)
    }

    /// Every event type recorded so far, for the filter's choices.
    public func eventTypes() async throws -> [String] {
        try await env.database.auditEventTypes()
    }

    /// Completed and failed sign-ins per hour since `start`, for the sign-in chart.
    public func signInsPerHour(since start: Date) async throws -> [SignInHour] {
        try await env.database.signInsPerHour(since: start).map(SignInHour.init)
    }

    /// Who each actor and subject of `events` is — a superuser or a person, by email — so rows
    /// name people rather than ids. Ids no longer found (a deleted account) are left out; the
    /// backend is asked once per distinct id, at most `AuditQuery`'s page of them at a time.
    public func people(in events: [AuditLine]) async -> [String: AuditPerson] {
        let ids = Set(events.flatMap { [$0.actor, $0.subject].compactMap(\.self) })
        let reader = self
        return await withTaskGroup(of: (String, AuditPerson?).self) { group in
            for id in ids { group.addTask { (id, await reader.person(id)) } }
            var people: [String: AuditPerson] = [:]
            for await (id, person) in group { people[id] = person }
            return people
        }
    }

    private func person(_ id: String) async -> AuditPerson? {
        if let superuser = try? await env.database.superuser(id: id) {
            return AuditPerson(email: superuser.email, isStaff: true)
        }
        guard env.capabilities.contains(.userAdministration),
            let user = try? await env.backend.admin.user(UserID(id))
        else { return nil }
        return AuditPerson(email: user.email, isStaff: false)
    }
}

/// An actor or subject of the audit trail as the console names it.
public struct AuditPerson: Sendable, Equatable {
    public var email: String
    /// A superuser (no user page to link to).
    public var isStaff: Bool
}
