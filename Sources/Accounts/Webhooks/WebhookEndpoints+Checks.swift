import Foundation

extension WebhookEndpoints {
    /// `url` when it is an absolute http(s) URL to a host the policy allows: loopback ones
    /// (`localhost`, `127.0.0.0/8`, `::1`), where a developer's app runs, unless any is allowed.
    func checked(url: String) throws -> String {
        guard url.count <= 2048, let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = parsed.host, !host.isEmpty
        else { throw WebhookEndpointError.badURL }
        guard webhooks.policy.allowsAnyHost || Self.isLoopback(host) else { throw WebhookEndpointError.hostNotAllowed(host) }
        return url
    }

    /// Whether `host` names this machine.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// `events` when each is a known type (nil, or empty, sends every type).
    func checked(events: [String]?) throws -> [String]? {
        guard let events, !events.isEmpty else { return nil }
        if let unknown = events.first(where: { WebhookEventType(rawValue: $0) == nil }) {
            throw WebhookEndpointError.unknownEventType(unknown)
        }
        return Array(Set(events)).sorted()
    }

    /// `headers` when each name is an HTTP token that is not a signing header and no value breaks a line.
    func checked(headers: [String: String]) throws -> [String: String] {
        let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for (name, value) in headers {
            guard !name.isEmpty, name.unicodeScalars.allSatisfy(token.contains), !WebhookMessage.isSigning(name),
                !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }), value.count <= 4096
            else { throw WebhookEndpointError.badHeader(name) }
        }
        return headers
    }
}
