import Accounts
import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// The dev mailbox: every email Gatehouse "sent", as a console page (`/_/mailbox`, filtered by
/// `?to=`, live through `MailboxLive`, cleared by staff) and as JSON (`GET /_/api/mailbox?to=EMAIL`,
/// newest first). Readable by anyone while Gatehouse is bound to loopback (test scripts and a
/// person's own inbox rely on that); otherwise superusers only (console cookie for the page, bearer
/// token for the JSON). Clearing is always a superuser's act.
struct MailboxPages: Sendable {
    let env: PageEnvironment
    static let defaultLimit = 50
    static let maximumLimit = 500

    /// One mail as the JSON API returns it.
    struct Entry: Encodable {
        var id: Int64
        var to: String
        var subject: String
        var text: String
        var html: String
        var code: String?
        var link: String?
        var createdAt: String
    }

    func register(on router: inout Router) {
        router.page(.get, "/_/mailbox", env) { visit in
            let staff = await env.console.fromCookie(visit.request)
            if !env.configuration.mailboxIsOpen, staff == nil {
                return .redirect(to: URLQuery.path("/_/", [("redirect", visit.request.rawPathAndQuery)]))
            }
            var extra: [String: Any] = [:]
            if let cleared = try visit.query("cleared").flatMap(Int.init) {
                extra["notice"] = cleared == 1 ? "Deleted 1 message." : "Deleted \(CountText.grouped(cleared)) messages."
            }
            return try await page(visit, staff, extra)
        }
        router.consolePage(.post, "/_/mailbox/clear", env) { visit, staff in
            guard try visit.field("confirm") == "yes" else {
                return try await page(
                    visit, staff, ["clearError": "Tick “Delete every message” to confirm."], status: 422)
            }
            let clearing = MailboxClearing(
                env: env.accounts, mailbox: env.mailbox, staff: staff, request: visit.request, via: "console")
            let count = try await clearing.clear()
            return .redirect(to: "/_/mailbox?cleared=\(count)")
        }
        router.on(.get, "/_/api/mailbox") { request, _ in
            if !env.configuration.mailboxIsOpen, await env.console.fromBearer(request) == nil {
                return APIError.response(
                    status: 401, code: "UNAUTHORIZED",
                    message: "Off loopback the mailbox is for superusers: send Authorization: Bearer TOKEN.")
            }
            let filter = try request.query.single("to")?.trimmingCharacters(in: .whitespaces)
            let limitText = try request.query.single("limit")
            guard let limit = limitText.map(Int.init) ?? Self.defaultLimit, (1...Self.maximumLimit).contains(limit) else {
                return APIError.response(
                    status: 400, code: "INVALID_LIMIT",
                    message: "limit must be a whole number from 1 to \(Self.maximumLimit).")
            }
            let mails = try await env.mailbox.mails(to: filter.flatMap { $0.isEmpty ? nil : $0 }, limit: limit)
            return try .json(
                mails.map { mail in
                    Entry(
                        id: mail.id, to: mail.recipient, subject: mail.subject, text: mail.text, html: mail.html,
                        code: mail.code, link: mail.link, createdAt: Timestamp.iso8601(mail.createdAt))
                })
        }
    }

    /// The page, inside the console's layout (with its sidebar when a superuser is signed in).
    private func page(_ visit: Visit, _ staff: Staff?, _ extra: [String: Any], status: Int = 200) async throws -> Response {
        let filter = (try visit.query("to") ?? "").trimmingCharacters(in: .whitespaces)
        let mails = try await env.mailbox.mails(to: filter.isEmpty ? nil : filter, limit: Self.defaultLimit)
        var page: [String: Any] = [
            "filter": filter,
            "empty": mails.isEmpty,
            "canClear": staff != nil,
            "eventsURL": URLQuery.path(
                "/_/mailbox/events", (filter.isEmpty ? [] : [("to", filter)]) + [("after", String(mails.first?.id ?? 0))]),
            "mails": mails.map { mail in
                [
                    "id": mail.id, "to": mail.recipient, "subject": mail.subject, "text": mail.text,
                    "code": mail.code ?? "", "link": mail.link ?? "", "createdAt": DisplayDate.dateTime(mail.createdAt)
                ] as [String: Any]
            }
        ]
        page.merge(extra) { $1 }
        let context =
            if let staff {
                visit.consoleContext(
                    title: "Dev mailbox", staff: staff, nav: .mailbox, backendName: env.configuration.backendDescription,
                    page)
            } else {
                visit.context(title: "Dev mailbox", page)
            }
        return env.renderer.page(.consoleMailbox, context, status: status)
    }
}

/// Gatehouse's own JSON error envelope: `{"error": CODE, "message": TEXT, "status": N}`.
enum APIError {
    struct Body: Encodable {
        var error: String
        var message: String
        var status: Int
    }

    static func response(status: Int, code: String, message: String) -> Response {
        // Encoding three plain fields cannot fail; the text fallback only satisfies the type checker.
        (try? .json(Body(error: code, message: message, status: status), status: status)) ?? .text(message, status: status)
    }
}
