import Foundation
import Store

/// An endpoint as the admin API and the console show it (its secret only where asked for).
public struct WebhookEndpoint: Sendable, Equatable {
    public var id: String
    public var url: String
    /// The event types sent; nil sends every type.
    public var events: [String]?
    public var enabled: Bool
    /// Whether requests also carry `svix-id`, `svix-timestamp` and `svix-signature`.
    public var svixHeaders: Bool
    public var headers: [String: String]
    /// Since when deliveries give up on it; nil while it answers.
    public var failingSince: Date?
    /// Until when the secret before the last rotation still signs too.
    public var previousSecretUntil: Date?
    public var createdAt: Date

    init(_ record: WebhookEndpointRecord, now: Date) {
        (id, url, events, enabled, svixHeaders) = (record.id, record.url, record.events, record.enabled, record.svixHeaders)
        (headers, failingSince, createdAt) = (record.headers, record.failingSince, record.createdAt)
        previousSecretUntil = record.previousUntil.flatMap { $0 > now ? $0 : nil }
    }
}

/// What an edit of an endpoint changes; nil fields stay as they are.
public struct WebhookEndpointEdit: Sendable {
    public var url: String?
    /// The new filter: `.some(nil)` sends every type again.
    public var events: [String]??
    public var enabled: Bool?
    public var svixHeaders: Bool?
    public var headers: [String: String]?

    public init(
        url: String? = nil, events: [String]?? = nil, enabled: Bool? = nil, svixHeaders: Bool? = nil,
        headers: [String: String]? = nil
    ) {
        (self.url, self.events, self.enabled, self.svixHeaders, self.headers) = (url, events, enabled, svixHeaders, headers)
    }
}

/// A delivery as the inspector lists it.
public struct WebhookDeliverySummary: Sendable, Equatable {
    public var id: Int64
    public var eventID: String
    public var type: String
    /// `pending`, `delivered` or `failed`.
    public var state: String
    public var attempts: Int
    public var nextAt: Date
    public var createdAt: Date
    public var lastStatus: Int?

    init(_ record: WebhookDeliveryRecord) {
        (id, eventID, type, state, attempts) = (record.id, record.eventID, record.type, record.state, record.attempts)
        (nextAt, createdAt, lastStatus) = (record.nextAt, record.createdAt, record.lastStatus)
    }
}

/// One try of a delivery: the request as sent and what came back.
public struct WebhookAttempt: Sendable, Equatable {
    public var requestHeaders: [String: String]
    public var requestBody: String
    public var status: Int?
    public var responseBody: String?
    /// Why no answer came (refused, timed out), when none did.
    public var error: String?
    public var durationMilliseconds: Int
    public var at: Date

    init(_ record: WebhookAttemptRecord) {
        (requestHeaders, requestBody, status) = (record.requestHeaders, record.requestBody, record.status)
        (responseBody, error, durationMilliseconds, at) = (
            record.responseBody, record.error, record.durationMilliseconds, record.at
        )
    }
}
