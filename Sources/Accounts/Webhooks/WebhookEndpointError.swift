import HTTPServer

/// Why an endpoint cannot be saved or found; each API family answers it in its own envelope.
public enum WebhookEndpointError: Error, HTTPResponseError, Equatable {
    case badURL
    case hostNotAllowed(String)
    case unknownEventType(String)
    case badHeader(String)
    case notFound

    public var status: Int { self == .notFound ? 404 : 400 }

    public var message: String {
        switch self {
        case .badURL: return "url must be an absolute http:// or https:// URL."
        case .hostNotAllowed(let host):
            return "\(host) is not a loopback host; start Gatehouse with --webhook-any-host to send webhooks elsewhere."
        case .unknownEventType(let type):
            return "\(type) is not an event type; see GET /_/api/webhooks/event-types."
        case .badHeader(let name): return "\(name) cannot be sent as an endpoint header."
        case .notFound: return "There is no webhook endpoint with that id."
        }
    }
}
