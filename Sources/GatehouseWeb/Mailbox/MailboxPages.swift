import AuthCore
import Foundation
import HTTPServer
import Store

/// The dev mailbox: every email Gatehouse "sent", as a page (`/_/mailbox`) and as JSON
/// (`GET /_/api/mailbox?to=EMAIL`, newest first). Open to anyone while Gatehouse is bound to
/// loopback; otherwise superusers only (console cookie for the page, bearer token for the JSON).
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
            if !env.configuration.mailboxIsOpen, await env.console.fromCookie(visit.request) == nil {
                return .redirect(to: URLQuery.path("/_/", [("redirect", visit.request.rawPathAndQuery)]))
            }
            let filter = (try visit.query("to") ?? "").trimmingCharacters(in: .whitespaces)
            let mails = try await env.mailbox.mails(to: filter.isEmpty ? nil : filter, limit: Self.defaultLimit)
            return env.renderer.page(
                .mailbox,
                visit.context(
                    title: "Dev mailbox",
                    [
                        "filter": filter,
                        "empty": mails.isEmpty,
                        "mails": mails.map { mail in
                            [
                                "id": mail.id, "to": mail.recipient, "subject": mail.subject, "text": mail.text,
                                "code": mail.code ?? "", "link": mail.link ?? "",
                                "createdAt": DisplayDate.dateTime(mail.createdAt)
                            ] as [String: Any]
                        }
                    ]))
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
