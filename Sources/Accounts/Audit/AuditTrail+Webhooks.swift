import AuthCore
import Store

extension AuditTrail {
    /// The webhook event an audited act is, if any: its type, its account, and in `data` the way
    /// in (`wayIn`: the front-end's `via`, `console` for staff's acts, else `pages`), the actor, the
    /// source address and the act's own details.
    static func webhook(
        _ event: AuditEvent, actor: String?, subject: String?, ip: String?, data: [String: JSONValue]
    ) -> NewWebhookEvent? {
        guard let type = WebhookEventType(audit: event) else { return nil }
        var details = data
        let via = details.removeValue(forKey: "via")?.stringValue
        let wayIn =
            via ?? (event.rawValue.hasPrefix("admin.") || event.rawValue.hasPrefix("impersonation.") ? "console" : "pages")
        var context: [String: JSONValue] = ["wayIn": .string(wayIn), "actor": actor.map(JSONValue.string) ?? .null]
        if let ip { context["ip"] = .string(ip) }
        if !details.isEmpty { context["details"] = .object(details) }
        return NewWebhookEvent(type: type.rawValue, userID: subject, context: context)
    }
}
