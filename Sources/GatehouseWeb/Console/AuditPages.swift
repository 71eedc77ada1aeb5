import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The audit log: `/_/audit` (filters, a sign-in chart, newest events first, people by email and
/// events in words — `AuditWording`), its CSV download `/_/audit/export.csv`, and `GET /_/api/audit`.
struct AuditPages: Sendable {
    let env: PageEnvironment
    static let pageSize = 50
    /// The most rows one CSV download holds (narrow the dates for more).
    static let exportLimit = 10_000

    func register(on router: inout Router) {
        router.consolePage(.get, "/_/audit", env) { visit, staff in
            var errors = FormErrors()
            let filter = try Self.filter(from: visit.request.query, errors: &errors)
            let log = AuditLog(env: env.accounts)
            let events = try await log.events(filter)
            let start = SignInChart.windowStart(endingAt: env.clock())
            let chart = SignInChart(counts: try await log.signInsPerHour(since: start), start: start)
            let types = try await log.eventTypes()
            let people = await log.people(in: events)
            let dates = [(try visit.query("from")) ?? "", (try visit.query("to")) ?? ""]
            var page: [String: Any] = [
                "filters": ["user": filter.subject ?? "", "actor": filter.actor ?? "", "from": dates[0], "to": dates[1]],
                "typeAny": filter.type == nil,
                "types": types.map { ["value": $0, "selected": $0 == filter.type] as [String: Any] },
                "chartSVG": chart.svg,
                "chartSummary": chart.summary,
                // The chart counts everyone's sign-ins: under a filter, read beside one person's events, it says so.
                "chartUnfiltered": [filter.type, filter.actor, filter.subject].contains { $0 != nil } || dates != ["", ""],
                "events": events.map { Self.row($0, people: people) },
                "eventsEmpty": events.isEmpty,
                "exportURL": URLQuery.path(
                    "/_/audit/export.csv", visit.request.query.filter { $0.name != "before" }.map { ($0.name, $0.value) })
            ]
            if events.count == Self.pageSize, let last = events.last {
                page["nextURL"] = Self.url(filter: filter, query: visit.request.query, before: last.id)
            }
            return env.renderer.page(
                .consoleAudit,
                visit.consoleContext(
                    title: "Audit log", staff: staff, nav: .auditLog, backendName: env.configuration.backendDescription,
                    page.merging(errors.context) { $1 }), status: errors.isEmpty ? 200 : 422)
        }
        router.consolePage(.get, "/_/audit/export.csv", env) { visit, _ in
            var errors = FormErrors()
            var filter = try Self.filter(from: visit.request.query, errors: &errors)
            guard errors.isEmpty else {
                return env.renderer.errorPage(
                    status: 422, heading: "Check the filters", message: errors.messages.map(\.message).joined(separator: " "))
            }
            if visit.request.query.first(where: { $0.name == "limit" }) == nil { filter.limit = Self.exportLimit }
            return try await Self.csv(AuditLog(env: env.accounts), filter)
        }
        router.adminAPI(.get, "/_/api/audit", env) { request, _, _ in
            var errors = FormErrors()
            let filter = try Self.filter(from: request.query, errors: &errors)
            guard errors.isEmpty else {
                return APIError.response(
                    status: 400, code: "INVALID_FILTER",
                    message: errors.messages.map(\.message).joined(separator: " "))
            }
            return try .json(try await AuditLog(env: env.accounts).events(filter).map(AuditEntry.init))
        }
    }

    /// Reads the filter from a query string; a date that does not parse is reported, not ignored.
    static func filter(from query: Parameters, errors: inout FormErrors) throws(RequestError) -> AuditQuery {
        func text(_ name: String) throws(RequestError) -> String? {
            let value = try query.single(name)?.trimmingCharacters(in: .whitespaces)
            return value?.isEmpty == false ? value : nil
        }
        func date(_ name: String) throws(RequestError) -> Date? {
            guard let value = try text(name) else { return nil }
            guard let parsed = LocalDateTime.parse(value) else {
                errors.add(name, "Use a date and time like 2026-11-21T09:30 (UTC).")
                return nil
            }
            return parsed
        }
        var filter = AuditQuery(
            type: try text("type"), actor: try text("actor"), subject: try text("user"),
            from: try date("from"), to: try date("to"), limit: pageSize)
        if let before = try text("before") {
            guard let id = Int64(before) else {
                errors.add("before", "before must be an event id.")
                return filter
            }
            filter.beforeID = id
        }
        if let limit = try text("limit") {
            guard let value = Int(limit), (1...500).contains(value) else {
                errors.add("limit", "limit must be a whole number from 1 to 500.")
                return filter
            }
            filter.limit = value
        }
        return filter
    }

    private static func url(filter: AuditQuery, query: Parameters, before: Int64) -> String {
        let kept = query.filter { $0.name != "before" }.map { ($0.name, $0.value) }
        return URLQuery.path("/_/audit", kept + [("before", String(before))])
    }

    private static func row(_ event: AuditLine, people: [String: AuditPerson]) -> [String: Any] {
        let named = Named(event, people)
        var row = AuditWording.fields(event)
        row["id"] = event.id
        row["actor"] = named.actor ?? ""
        row["subject"] = named.subject ?? ""
        if let subject = event.subject, people[subject]?.isStaff != true, !event.type.hasPrefix("console.") {
            row["subjectURL"] = ConsoleURL.user(UserID(subject))
        }
        if let actor = event.actor, people[actor]?.isStaff != true {
            row["actorURL"] = ConsoleURL.user(UserID(actor))
        }
        return row
    }

    /// An event's actor and subject by email where known: the subject of a refused sign-in or
    /// sign-up, which has no account id, is the address that was typed.
    struct Named {
        var actor: String?
        var subject: String?

        init(_ event: AuditLine, _ people: [String: AuditPerson]) {
            actor = event.actor.map { people[$0]?.email ?? $0 }
            subject = event.subject.map { people[$0]?.email ?? $0 } ?? event.data["email"]?.stringValue
        }
    }

    /// The filtered events as a spreadsheet-safe CSV download, newest first.
    private static func csv(_ log: AuditLog, _ filter: AuditQuery) async throws -> Response {
        let events = try await log.events(filter)
        let people = await log.people(in: events)
        var body = CSV.line(["time", "event", "type", "reason", "way_in", "actor", "subject", "ip", "details"])
        for event in events {
            let named = Named(event, people)
            body += CSV.line(
                [
                    Timestamp.iso8601(event.createdAt), AuditWording.headline(event), event.type,
                    AuditWording.reason(event) ?? "", AuditWording.wayIn(event), named.actor ?? "system",
                    named.subject ?? "", event.ip ?? "", AuditWording.details(event)
                ].map(CSV.spreadsheetSafe))
        }
        var response = Response(status: 200, headers: ["Content-Type": "text/csv; charset=utf-8"], body: Array(body.utf8))
        response.headers.replaceOrAdd("Content-Disposition", "attachment; filename=\"gatehouse-audit.csv\"")
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        return response
    }
}

/// One audit event as `GET /_/api/audit` returns it.
struct AuditEntry: Encodable {
    var id: Int64
    var type: String
    var actor: String?
    var subject: String?
    var ip: String?
    var createdAt: String
    var data: [String: JSONValue]

    init(_ record: AuditLine) {
        id = record.id
        type = record.type
        actor = record.actor
        subject = record.subject
        ip = record.ip
        createdAt = Timestamp.iso8601(record.createdAt)
        data = record.data
    }
}

/// `datetime-local` form values (`2026-11-21T09:30`, seconds optional), read as UTC.
enum LocalDateTime {
    static func parse(_ text: String) -> Date? {
        let withSeconds = text.count == 16 ? text + ":00" : text
        return Timestamp.parse(withSeconds + "Z")
    }
}
