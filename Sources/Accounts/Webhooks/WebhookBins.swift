import AuthCore
import Foundation

/// The built-in receiving bins (`/_/webhooks/bin/{name}`): what arrived at each, newest first,
/// each checked against the secrets of the endpoints that point at it, so a developer sees events
/// before their app exists. Kept in memory only, bounded: `maxBins` bins of `perBin` requests.
public actor WebhookBins {
    /// One request as it arrived.
    public struct Arrival: Sendable {
        public var at: Date
        public var headers: [(String, String)]
        public var body: String
        /// `verified`, `unsigned` (no endpoint points here, or no signature headers) or `mismatch`.
        public var signature: String
        /// The event's `type`, when the body is one.
        public var type: String?
    }

    static let maxBins = 20
    static let perBin = 50
    private var bins: [String: [Arrival]] = [:]
    private var order: [String] = []

    /// Keeps `arrival` in bin `name`, dropping the oldest request (and the least recent bin) beyond the bounds.
    func keep(_ arrival: Arrival, in name: String) {
        if bins[name] == nil {
            order.append(name)
            if order.count > Self.maxBins { bins[order.removeFirst()] = nil }
        }
        bins[name, default: []].insert(arrival, at: 0)
        bins[name] = Array(bins[name, default: []].prefix(Self.perBin))
    }

    func arrivals(in name: String) -> [Arrival] { bins[name] ?? [] }
}

extension WebhookEndpoints {
    /// The path of bin `name`, which endpoints name as their URL's path to deliver to it.
    public static func binPath(_ name: String) -> String { "/_/webhooks/bin/" + name }

    /// Keeps a request that arrived at bin `name`, its signature checked with the secrets of every
    /// endpoint whose URL ends in the bin's path.
    public static func receive(
        in env: Accounts, bin name: String, headers: [(String, String)], body: [UInt8], now: Date
    ) async throws {
        let header = { (wanted: String) in headers.first { $0.0.lowercased() == wanted }?.1 }
        var signature = header("webhook-signature") == nil && header("svix-signature") == nil ? "unsigned" : "mismatch"
        if signature == "mismatch" {
            for endpoint in try await env.database.webhookEndpoints()
            where endpoint.url.hasSuffix(binPath(name)) {
                for secret in try env.webhooks.secrets.opened(endpoint) {
                    if (try? WebhookVerifier(secret: secret).verify(body: body, header: header, now: now)) != nil {
                        signature = "verified"
                    }
                }
            }
        }
        let text = String(decoding: body.prefix(64 * 1024), as: UTF8.self)
        var type: String?
        if case .object(let fields)? = JSONValue(parsing: text) { type = fields["type"]?.stringValue }
        await env.webhooks.bins.keep(
            WebhookBins.Arrival(at: now, headers: headers, body: text, signature: signature, type: type), in: name)
    }

    /// What arrived at bin `name`, newest first.
    public func arrivals(in name: String) async -> [WebhookBins.Arrival] {
        await webhooks.bins.arrivals(in: name)
    }
}
