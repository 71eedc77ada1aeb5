import AuthCore
import Foundation
import HTTPServer
import Secrets
import Store

/// A superuser's webhook endpoints, for the admin API and the console alike: add one (answered
/// with its `whsec_` secret), edit, rotate its secret, remove; read its deliveries and their tries,
/// replay one, send a test event. Targets are loopback hosts unless the policy allows any.
public struct WebhookEndpoints: Sendable {
    let env: Accounts
    let staff: Staff
    /// The front-end acting, named in test events (`api`, `console`).
    let via: String

    public init(env: Accounts, staff: Staff, via: String) { (self.env, self.staff, self.via) = (env, staff, via) }

    var webhooks: Webhooks { env.webhooks }
    var database: AppDatabase { env.database }

    /// Every endpoint, oldest first.
    public func all() async throws -> [WebhookEndpoint] {
        let now = env.clock()
        return try await database.webhookEndpoints().map { WebhookEndpoint($0, now: now) }
    }

    public func endpoint(_ id: String) async throws -> WebhookEndpoint {
        WebhookEndpoint(try await record(id), now: env.clock())
    }

    /// The endpoint's current secret, for a receiver's configuration.
    public func secret(of id: String) async throws -> String {
        try webhooks.secrets.current(try await record(id))
    }

    /// A new enabled endpoint for `url`, sending `events` (every type when nil); with its secret.
    public func add(url: String, events: [String]?, svixHeaders: Bool = false, headers: [String: String] = [:])
        async throws -> (endpoint: WebhookEndpoint, secret: String)
    {
        let secret = WebhookSecrets.generate()
        let record = WebhookEndpointRecord(
            id: "ep_" + Hex.encode(SecureRandom.bytes(8)), url: try checked(url: url), events: try checked(events: events),
            secret: webhooks.secrets.sealed(secret), svixHeaders: svixHeaders, headers: try checked(headers: headers),
            createdAt: env.clock())
        try await database.saveWebhookEndpoint(record)
        return (WebhookEndpoint(record, now: env.clock()), secret)
    }

    /// The endpoint with `edit` applied.
    public func edit(_ id: String, _ edit: WebhookEndpointEdit) async throws -> WebhookEndpoint {
        var record = try await record(id)
        if let url = edit.url { record.url = try checked(url: url) }
        if let events = edit.events { record.events = try checked(events: events) }
        if let enabled = edit.enabled { record.enabled = enabled }
        if let svix = edit.svixHeaders { record.svixHeaders = svix }
        if let headers = edit.headers { record.headers = try checked(headers: headers) }
        try await database.saveWebhookEndpoint(record)
        if record.enabled { await webhooks.delivery.nudge() }
        return WebhookEndpoint(record, now: env.clock())
    }

    /// A new secret for the endpoint; the old one still signs (a second signature) for the
    /// policy's overlap, so receivers can move over without losing a request.
    public func rotateSecret(of id: String) async throws -> (endpoint: WebhookEndpoint, secret: String) {
        var record = try await record(id)
        let secret = WebhookSecrets.generate()
        record.previousSecret = record.secret
        record.previousUntil = env.clock().addingTimeInterval(webhooks.policy.rotationOverlap)
        record.secret = webhooks.secrets.sealed(secret)
        try await database.saveWebhookEndpoint(record)
        return (WebhookEndpoint(record, now: env.clock()), secret)
    }

    public func remove(_ id: String) async throws {
        guard try await database.deleteWebhookEndpoint(id: id) else { throw WebhookEndpointError.notFound }
    }

    /// The endpoint's newest deliveries, newest first.
    public func deliveries(of id: String, limit: Int = 50) async throws -> [WebhookDeliverySummary] {
        _ = try await record(id)
        return try await database.webhookDeliveries(endpointID: id, limit: limit).map(WebhookDeliverySummary.init)
    }

    /// The tries of one delivery, oldest first.
    public func attempts(of delivery: Int64, endpoint id: String) async throws -> [WebhookAttempt] {
        try await database.webhookAttempts(deliveryID: delivery, endpointID: id).map(WebhookAttempt.init)
    }

    /// Sends the delivery's event again, as it was (the same `webhook-id` and body).
    public func replay(_ delivery: Int64, endpoint id: String) async throws {
        guard try await database.replayWebhookDelivery(id: delivery, endpointID: id) else {
            throw WebhookEndpointError.notFound
        }
        await webhooks.delivery.nudge()
    }

    /// A test event of `type` to this endpoint alone, `data.test` true.
    public func sendTest(type: String, to id: String) async throws {
        let record = try await record(id)
        guard WebhookEventType(rawValue: type) != nil else { throw WebhookEndpointError.unknownEventType(type) }
        try await database.enqueueTestWebhook(
            type: type, endpointID: record.id,
            context: ["wayIn": .string(via), "actor": .string(staff.superuser.id), "test": .bool(true)])
        await webhooks.delivery.nudge()
    }

    private func record(_ id: String) async throws -> WebhookEndpointRecord {
        guard let record = try await database.webhookEndpoint(id: id) else { throw WebhookEndpointError.notFound }
        return record
    }
}
