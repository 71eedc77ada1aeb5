import Accounts
import Foundation
import HTTPServer

/// An endpoint as `/_/api/webhooks` answers it; `secret` only when it was just made or rotated.
struct EndpointBody: Encodable {
    var id: String
    var url: String
    var events: [String]?
    var enabled: Bool
    var svixHeaders: Bool
    var headers: [String: String]
    var failingSince: String?
    var previousSecretUntil: String?
    var createdAt: String
    var secret: String?

    init(_ endpoint: WebhookEndpoint, secret: String? = nil) {
        (id, url, events, enabled) = (endpoint.id, endpoint.url, endpoint.events, endpoint.enabled)
        (svixHeaders, headers, self.secret) = (endpoint.svixHeaders, endpoint.headers, secret)
        failingSince = endpoint.failingSince.map(Timestamp.iso8601)
        previousSecretUntil = endpoint.previousSecretUntil.map(Timestamp.iso8601)
        createdAt = Timestamp.iso8601(endpoint.createdAt)
    }
}

/// `PATCH /_/api/webhooks/:id`: the fields given change; `"events": null` sends every type again.
struct EndpointPatch: Decodable {
    var edit = WebhookEndpointEdit()

    private enum CodingKeys: String, CodingKey {
        case url, events, enabled, svixHeaders, headers
    }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        edit.url = try container.decodeIfPresent(String.self, forKey: .url)
        if container.contains(.events) {
            edit.events = .some(
                try container.decodeNil(forKey: .events) ? nil : try container.decode([String].self, forKey: .events))
        }
        edit.enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled)
        edit.svixHeaders = try container.decodeIfPresent(Bool.self, forKey: .svixHeaders)
        edit.headers = try container.decodeIfPresent([String: String].self, forKey: .headers)
    }
}

/// A delivery as the deliveries list answers it.
struct DeliveryBody: Encodable {
    var id: Int64
    var eventId: String
    var type: String
    var state: String
    var attempts: Int
    var nextAttemptAt: String?
    var createdAt: String
    var lastStatus: Int?

    init(_ delivery: WebhookDeliverySummary) {
        (id, eventId, type, state, attempts) = (delivery.id, delivery.eventID, delivery.type, delivery.state, delivery.attempts)
        nextAttemptAt = delivery.state == "pending" ? Timestamp.iso8601(delivery.nextAt) : nil
        (createdAt, lastStatus) = (Timestamp.iso8601(delivery.createdAt), delivery.lastStatus)
    }
}

/// One try as the attempts list answers it.
struct AttemptBody: Encodable {
    var at: String
    var requestHeaders: [String: String]
    var requestBody: String
    var status: Int?
    var responseBody: String?
    var error: String?
    var durationMs: Int

    init(_ attempt: WebhookAttempt) {
        (requestHeaders, requestBody, status) = (attempt.requestHeaders, attempt.requestBody, attempt.status)
        (responseBody, error, durationMs, at) = (
            attempt.responseBody, attempt.error, attempt.durationMilliseconds, Timestamp.iso8601(attempt.at)
        )
    }
}
