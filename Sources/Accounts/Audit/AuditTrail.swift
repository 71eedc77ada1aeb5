import AuthCore
import Foundation
import HTTPServer
import Logging
import ServerSeam
import Store

/// Writes audit events (who did what to whom, from where). A failed write is logged, never shown:
/// the user's action already happened. An act webhooks report goes to their outbox in the same
/// transaction (`WebhookEventType(audit:)`, `AuditTrail+Webhooks`).
struct AuditTrail: Sendable {
    let database: AppDatabase
    let clock: @Sendable () -> Date
    let logger: Logger
    /// The delivery worker, told when an act added to the outbox; nil in the command line, whose
    /// events a running server's worker notices within a second (`watchOtherWriters`).
    var webhooks: WebhookDelivery? = nil

    func record(
        _ event: AuditEvent, actor: String? = nil, subject: String? = nil, request: Request,
        data: [String: JSONValue] = [:]
    ) async {
        await record(event, actor: actor, subject: subject, ip: request.remoteAddress, data: data)
    }

    /// An act with no request behind it (`ip` nil): the command line's.
    func record(
        _ event: AuditEvent, actor: String? = nil, subject: String? = nil, ip: String?, data: [String: JSONValue] = [:]
    ) async {
        do {
            let outboxChanged = try await database.recordAudit(
                NewAuditEvent(type: event.rawValue, actor: actor, subject: subject, ip: ip, data: data, at: clock()),
                webhooks: Self.webhooks(event, actor: actor, subject: subject, ip: ip, data: data))
            if outboxChanged, let webhooks { Task { await webhooks.nudge() } }
            RequestEffects.note("audit", event.rawValue)
        } catch {
            logger.error("audit write failed", metadata: ["type": "\(event.rawValue)", "error": "\(error)"])
        }
    }

    /// An act of the signed-in person on their own account, from a page. While a superuser
    /// impersonates them, the event names that superuser too (`data.impersonator`).
    func recordOwnAct(_ event: AuditEvent, of signedIn: SignedIn, request: Request, data: [String: JSONValue] = [:]) async {
        var data = data
        if let impersonator = signedIn.session.impersonator { data["impersonator"] = .string(impersonator) }
        let user = signedIn.user.id.rawValue
        await record(event, actor: user, subject: user, request: request, data: data)
    }

    /// `data` naming the front-end that asked (`via`), when there is one to name.
    static func data(_ data: [String: JSONValue], via: String?) -> [String: JSONValue] {
        guard let via else { return data }
        return data.merging(["via": .string(via)]) { $1 }
    }
}
