import AuthCore
import Foundation
import HTTPServer
import Store

/// One try's request: the event as `{type, timestamp, data}` — the same bytes on every try, so
/// `webhook-id` names one body — and the headers that sign it with the endpoint's secrets.
struct WebhookMessage {
    var body: [UInt8]
    var headers: [(String, String)]

    /// The request for `delivery` at `now`, signed with `secrets` (the current one first; two
    /// while a rotation's overlap lasts).
    init(_ delivery: DueWebhookDelivery, secrets: [String], now: Date) throws {
        let body = Self.payload(of: delivery).serialized
        self.body = body
        let timestamp = Int(now.timeIntervalSince1970)
        let signatures = try secrets.compactMap(WebhookSignature.key(of:)).map {
            try WebhookSignature.v1(key: $0, id: delivery.eventID, timestamp: timestamp, body: body)
        }
        var headers = [("Content-Type", "application/json"), ("User-Agent", "Gatehouse-Webhooks")]
        headers += delivery.endpoint.headers.sorted { $0.key < $1.key }.filter { !Self.isSigning($0.key) }.map { ($0, $1) }
        let signing = [
            ("id", delivery.eventID), ("timestamp", String(timestamp)), ("signature", signatures.joined(separator: " "))
        ]
        headers += signing.map { ("webhook-" + $0, $1) }
        if delivery.endpoint.svixHeaders { headers += signing.map { ("svix-" + $0, $1) } }
        self.headers = headers
    }

    /// The event as it is sent: `data` holds the account as the admin API shows it (`user`), and,
    /// once the act's audit row named them, the way in (`wayIn`), the actor and the act's details.
    static func payload(of delivery: DueWebhookDelivery) -> JSONValue {
        var data: [String: JSONValue] = [:]
        if case .object(let context)? = delivery.context.flatMap(JSONValue.init(parsing:)) { data = context }
        if let user = delivery.user.flatMap(JSONValue.init(parsing:)) {
            data["user"] = user
        } else if let id = delivery.userID {
            data["user"] = .object(["id": .string(id)])
        }
        return .object([
            "type": .string(delivery.type), "timestamp": .string(Timestamp.iso8601(delivery.createdAt)),
            "data": .object(data)
        ])
    }

    /// Whether `name` is one of the signing headers an endpoint's own headers may not replace.
    static func isSigning(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasPrefix("webhook-") || lower.hasPrefix("svix-") || lower == "content-type"
    }
}
