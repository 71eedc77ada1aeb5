import AuthCore
import Store

extension AuditTrail {
    /// The webhook events an audited act is, if any: its type, its account, and in `data` the way
    /// in (`wayIn`: the front-end's `via`, `console` for staff's acts, else `pages`), the actor, the
    /// source address and the act's own details; a session's end says why (`reason`). A sign-up
    /// that signed the person in (`signedIn` in its data) is also that session's `session.created`;
    /// the test controls' `expire-now` that ended sessions (`kind` `sessions`, `count` above 0) is
    /// their `session.ended`.
    static func webhooks(
        _ event: AuditEvent, actor: String?, subject: String?, ip: String?, data: [String: JSONValue]
    ) -> [NewWebhookEvent] {
        guard let type = WebhookEventType(audit: event) ?? sessionsExpiredNow(event, data: data) else { return [] }
        var details = data
        let via = details.removeValue(forKey: "via")?.stringValue
        let wayIn =
            via ?? (event.rawValue.hasPrefix("admin.") || event.rawValue.hasPrefix("impersonation.") ? "console" : "pages")
        var context: [String: JSONValue] = ["wayIn": .string(wayIn), "actor": actor.map(JSONValue.string) ?? .null]
        if let ip { context["ip"] = .string(ip) }
        if let reason = endReason(event, scope: data["scope"]?.stringValue) { context["reason"] = .string(reason) }
        if !details.isEmpty { context["details"] = .object(details) }
        var events = [NewWebhookEvent(type: type.rawValue, userID: subject, context: context)]
        if event == .userSignedUp, data["signedIn"] == .bool(true) {
            events.append(NewWebhookEvent(type: WebhookEventType.sessionCreated.rawValue, userID: subject, context: context))
        }
        return events
    }

    /// `session.ended` for the test controls' `expire-now` when it ended sessions, else nil.
    static func sessionsExpiredNow(_ event: AuditEvent, data: [String: JSONValue]) -> WebhookEventType? {
        guard event == .testExpiredNow, data["kind"] == .string(AccountClockControl.Kind.sessions.rawValue),
            case .number(let count)? = data["count"], count > 0
        else { return nil }
        return .sessionEnded
    }

    /// Why a `session.ended` came, by the act that ended it: signing out of every session is
    /// `sign_out_everywhere`, ending one or the others `revoked`; `expired` is the test controls'
    /// `expire-now` here, and a session's end of life in `WebhookDelivery`'s sweep.
    static func endReason(_ event: AuditEvent, scope: String?) -> String? {
        switch event {
        case .signOut: return "sign_out"
        case .testExpiredNow: return "expired"
        case .sessionRevoked: return "revoked"
        case .sessionsSignedOut: return scope == "all" ? "sign_out_everywhere" : "revoked"
        default: return nil
        }
    }
}
