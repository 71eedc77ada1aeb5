import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The dev mailbox as Mailpit's API (`/api/v1/…`, on the main port), so a test suite's mail
/// helper written for Mailpit (the PyPI `mailpit-api-client`, …) reads Gatehouse's mail unchanged:
/// `GET messages?limit=&start=`, `GET message/{ID}`, `GET search?query=to:ADDRESS`, and
/// `DELETE messages` (every message; Mailpit's per-id delete is refused). Open like
/// `/_/api/mailbox`: to anyone while Gatehouse is on loopback, else to a superuser's token.
/// Mailpit's paths sit beside PocketBase's `/api/collections`, `/api/realtime` and InsForge's
/// `/api/auth`, which have no `v1`. Refusals are Mailpit's: plain text with the status.
struct MailpitAPI: Sendable {
    let env: PageEnvironment

    static let via = "mailpit-api"
    static let defaultLimit = 50
    static let maximumLimit = 500

    /// Mailpit answers its errors as plain text.
    static let renderer: Router.ErrorRenderer = { status, message in .text(message, status: status) }

    func register(on router: inout Router) {
        open(&router, .get, "/api/v1/messages") { request, _, _ in
            try await list(request, to: nil)
        }
        open(&router, .get, "/api/v1/search") { request, _, _ in
            let query = (try request.query.single("query") ?? "").trimmingCharacters(in: .whitespaces)
            guard query.lowercased().hasPrefix("to:"), !query.dropFirst(3).contains(" ") else {
                return .text("Gatehouse's mailbox searches by to:ADDRESS only", status: 400)
            }
            return try await list(
                request, to: String(query.dropFirst(3)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        }
        open(&router, .get, "/api/v1/message/:id") { _, parameters, _ in
            guard let message = try await mailbox.message(id: try parameters.require("id")) else {
                return .text("message not found", status: 404)
            }
            return try .json(MailpitShapes.message(message))
        }
        open(&router, .delete, "/api/v1/messages") { request, _, staff in
            guard try Self.namesNoIDs(request) else {
                return .text("Gatehouse's mailbox deletes every message only: send no IDs", status: 400)
            }
            _ = try await MailboxClearing(
                env: env.accounts, mailbox: env.mailbox, staff: staff, request: request, via: Self.via
            ).clear()
            return .text("ok")
        }
    }

    private var mailbox: DevMailbox { env.mailbox }

    /// A route where the test controls answer (`TestControls`), open while Gatehouse is bound to
    /// loopback, else for a superuser's bearer token (the staff member it names).
    private func open(
        _ router: inout Router, _ method: HTTPMethod, _ path: String,
        _ handler: @escaping @Sendable (Request, PathParameters, Staff?) async throws -> Response
    ) {
        router.on(method, path) { request, parameters in
            guard env.configuration.testControls.admits(request) else { return .text(TestControls.refusal, status: 403) }
            let staff = await env.console.fromBearer(request)
            guard env.configuration.mailboxIsOpen || staff != nil else {
                return .text("Off loopback the mailbox is for superusers: send Authorization: Bearer TOKEN", status: 401)
            }
            return try await handler(request, parameters, staff)
        }
    }

    /// A page of messages (`limit`, default 50, at most 500; `start`), only those to `to` when given.
    private func list(_ request: Request, to: String?) async throws -> Response {
        guard let limit = try Self.whole(request, "limit", else: Self.defaultLimit), (1...Self.maximumLimit).contains(limit),
            let start = try Self.whole(request, "start", else: 0), start >= 0
        else {
            return .text("limit must be 1 to \(Self.maximumLimit) and start a whole number from 0", status: 400)
        }
        let (total, messages) = try await mailbox.page(to: to, start: start, limit: limit)
        return try .json(MailpitShapes.messages(total: total, start: start, messages))
    }

    /// A query's whole number, `fallback` when absent; nil when it is not a number.
    private static func whole(_ request: Request, _ name: String, else fallback: Int) throws -> Int? {
        guard let text = try request.query.single(name) else { return fallback }
        return Int(text)
    }

    /// Whether a delete names no ids (an empty body, `{}`, `{"IDs": []}`, or a form without `ids`).
    private static func namesNoIDs(_ request: Request) throws -> Bool {
        if request.body.isEmpty { return true }
        if request.declaresJSON {
            guard case .object(let fields)? = request.jsonValue else { return false }
            let ids = fields["IDs"] ?? fields["ids"]
            return ids == nil || ids == .array([]) || ids == .null
        }
        return try request.form().values("ids").isEmpty
    }
}
