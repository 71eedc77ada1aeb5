import Accounts
import Foundation
import HTTPServer

/// One endpoint in the console (`/_/webhooks/{id}`): its settings and secret, each delivery with
/// its tries (request headers and body, the answer's status and body, the time it took), and the
/// acts on it (`POST /_/webhooks/{id}/{enable|disable|rotate|test|delete}`).
struct WebhookInspectorPage {
    let env: PageEnvironment
    let visit: Visit
    let staff: Staff
    /// How many deliveries the page lists, newest first.
    static let shownDeliveries = 20

    private var operations: WebhookEndpoints { WebhookEndpoints(env: env.accounts, staff: staff, via: "console") }

    func render() async throws -> Response {
        let id = try visit.parameters.require("id")
        let endpoint = try await operations.endpoint(id)
        var deliveries: [[String: Any]] = []
        for delivery in try await operations.deliveries(of: id, limit: Self.shownDeliveries) {
            let attempts = try await operations.attempts(of: delivery.id, endpoint: id)
            deliveries.append(Self.row(delivery, attempts: attempts, endpoint: id))
        }
        return env.renderer.page(
            .consoleWebhook,
            visit.consoleContext(
                title: "Webhook \(endpoint.url)", staff: staff, nav: .webhooks, backendName: env.configuration.backendDescription,
                [
                    "endpoint": [
                        "id": endpoint.id, "url": endpoint.url, "enabled": endpoint.enabled, "svixHeaders": endpoint.svixHeaders,
                        "events": endpoint.events?.joined(separator: ", ") ?? "Every event",
                        "failingSince": endpoint.failingSince.map(DisplayDate.dateTime) ?? "",
                        "previousSecretUntil": endpoint.previousSecretUntil.map(DisplayDate.dateTime) ?? ""
                    ],
                    "secret": try await operations.secret(of: id),
                    "eventTypes": WebhookEventType.allCases.map(\.rawValue),
                    "deliveries": deliveries, "deliveriesEmpty": deliveries.isEmpty
                ]))
    }

    /// An act on the endpoint, then back to its page (or to the list once it is deleted).
    func act() async throws -> Response {
        let id = try visit.parameters.require("id")
        switch try visit.parameters.require("act") {
        case "enable": _ = try await operations.edit(id, WebhookEndpointEdit(enabled: true))
        case "disable": _ = try await operations.edit(id, WebhookEndpointEdit(enabled: false))
        case "rotate": _ = try await operations.rotateSecret(of: id)
        case "test":
            try await operations.sendTest(type: try visit.form.single("type") ?? WebhookEventType.userCreated.rawValue, to: id)
        case "delete":
            try await operations.remove(id)
            return .redirect(to: "/_/webhooks")
        default: throw WebhookEndpointError.notFound
        }
        return .redirect(to: "/_/webhooks/\(id)")
    }

    /// A delivery as the template lists it, each try with what was sent and what came back.
    static func row(_ delivery: WebhookDeliverySummary, attempts: [WebhookAttempt], endpoint: String) -> [String: Any] {
        [
            "id": delivery.id, "eventId": delivery.eventID, "type": delivery.type, "state": delivery.state,
            "delivered": delivery.state == "delivered", "failed": delivery.state == "failed",
            "attemptCount": delivery.attempts, "createdAt": DisplayDate.dateTime(delivery.createdAt),
            "lastStatus": delivery.lastStatus.map(String.init) ?? "—",
            "replayURL": "/_/webhooks/\(endpoint)/deliveries/\(delivery.id)/replay",
            "attempts": attempts.enumerated().map { index, attempt in
                [
                    "number": index + 1, "at": DisplayDate.dateTime(attempt.at), "durationMs": attempt.durationMilliseconds,
                    "status": attempt.status.map(String.init) ?? "no answer", "error": attempt.error ?? "",
                    "requestHeaders": attempt.requestHeaders.sorted { $0.key < $1.key }.map { "\($0): \($1)" }
                        .joined(separator: "\n"),
                    "requestBody": attempt.requestBody, "responseBody": attempt.responseBody ?? ""
                ] as [String: Any]
            }
        ]
    }
}
