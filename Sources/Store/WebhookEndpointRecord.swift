import AuthCore
import Foundation
import GRDB

/// A `webhook_endpoints` row: where events go and the sealed secrets they are signed with.
public struct WebhookEndpointRecord: Sendable, Equatable, FetchableRecord {
    public var id: String
    public var url: String
    /// The event types sent; nil sends every type.
    public var events: [String]?
    /// The current `whsec_` secret, sealed.
    public var secret: [UInt8]
    /// The secret before the last rotation, sealed, signed with too until `previousUntil`.
    public var previousSecret: [UInt8]?
    public var previousUntil: Date?
    public var enabled: Bool
    /// Whether requests also carry the `svix-*` names of the three headers.
    public var svixHeaders: Bool
    /// Extra request headers, sent as given.
    public var headers: [String: String]
    /// Set when a delivery gave up; cleared by the next success.
    public var failingSince: Date?
    public var createdAt: Date

    public init(row: Row) throws {
        id = row["id"]
        url = row["url"]
        events = try (row["events"] as String?).map { try JSONDecoder().decode([String].self, from: Data($0.utf8)) }
        secret = Array(row["secret"] as Data)
        previousSecret = (row["previous_secret"] as Data?).map(Array.init)
        previousUntil = row["previous_until"]
        enabled = row["enabled"]
        svixHeaders = row["svix_headers"]
        headers = try JSONDecoder().decode([String: String].self, from: Data((row["headers"] as String).utf8))
        failingSince = row["failing_since"]
        createdAt = row["created_at"]
    }

    public init(
        id: String, url: String, events: [String]?, secret: [UInt8], svixHeaders: Bool, headers: [String: String],
        createdAt: Date
    ) {
        (self.id, self.url, self.events, self.secret) = (id, url, events, secret)
        (previousSecret, previousUntil, enabled, failingSince) = (nil, nil, true, nil)
        (self.svixHeaders, self.headers, self.createdAt) = (svixHeaders, headers, createdAt)
    }
}
