import Foundation
import GRDB

/// A delivery the worker may try now: its event as stored and the endpoint it goes to.
public struct DueWebhookDelivery: Sendable, Equatable {
    public var id: Int64
    public var attempts: Int
    public var eventID: String
    public var type: String
    public var userID: String?
    /// The account as the change left it (JSON), nil for a test event or an account not stored here.
    public var user: String?
    /// The way in and actor (JSON), nil when the act's audit row never came (a crash in between).
    public var context: String?
    public var createdAt: Date
    public var endpoint: WebhookEndpointRecord
}

/// A delivery as the inspector lists it.
public struct WebhookDeliveryRecord: Sendable, Equatable, FetchableRecord {
    public var id: Int64
    public var eventID: String
    public var type: String
    public var state: String
    public var attempts: Int
    public var nextAt: Date
    public var createdAt: Date
    public var lastStatus: Int?

    public init(row: Row) {
        (id, eventID, type, state) = (row["id"], row["event_id"], row["type"], row["state"])
        (attempts, nextAt, createdAt, lastStatus) = (row["attempts"], row["next_at"], row["created_at"], row["last_status"])
    }
}

/// One try of a delivery: what was sent and what came back.
public struct WebhookAttemptRecord: Sendable, Equatable, FetchableRecord {
    public var requestHeaders: [String: String]
    public var requestBody: String
    public var status: Int?
    public var responseBody: String?
    public var error: String?
    public var durationMilliseconds: Int
    public var at: Date

    public init(row: Row) throws {
        requestHeaders = try JSONDecoder().decode(
            [String: String].self, from: Data((row["request_headers"] as String).utf8))
        (requestBody, status, responseBody, error) = (row["request_body"], row["status"], row["response_body"], row["error"])
        (durationMilliseconds, at) = (row["duration_ms"], row["at"])
    }

    public init(
        requestHeaders: [String: String], requestBody: String, status: Int?, responseBody: String?, error: String?,
        durationMilliseconds: Int, at: Date
    ) {
        (self.requestHeaders, self.requestBody, self.status) = (requestHeaders, requestBody, status)
        (self.responseBody, self.error, self.durationMilliseconds, self.at) = (responseBody, error, durationMilliseconds, at)
    }
}

/// What a try means for its delivery.
public enum WebhookAttemptOutcome: Sendable, Equatable {
    case delivered
    /// Tried again this many seconds from now.
    case retry(after: TimeInterval)
    /// Given up: the delivery failed and its endpoint is marked failing.
    case failed
}

/// One look of the delivery worker (`AppDatabase.webhookWork`): what to send now, when to look
/// again for other deliveries (nil: none pending but those in flight), and when the next session
/// with a fixed end lapses (nil: none will, or no endpoint hears).
public struct WebhookWork: Sendable {
    public var due: [DueWebhookDelivery]
    public var secondsUntilNext: TimeInterval?
    public var nextSessionExpiry: Date?
}
