/// Why the server could not start.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `host` is not an IP literal (or `localhost`).
    case invalidHost(String)
    /// A setting is out of range; the text names it.
    case invalidConfiguration(String)
    /// Another socket already listens on the address.
    case addressInUse(host: String, port: Int)
    /// Binding needs privileges this process lacks (ports below 1024).
    case permissionDenied(host: String, port: Int)
    /// `start()` was called on a server that already started.
    case alreadyStarted
    /// libmicrohttpd refused to start; `reason` carries its log message.
    case startFailed(reason: String)

    public var description: String {
        switch self {
        case .invalidHost(let host): "invalid host \"\(host)\": use an IP address such as 127.0.0.1 or ::1"
        case .invalidConfiguration(let reason): "invalid configuration: \(reason)"
        case .addressInUse(let host, let port): "address \(host) port \(port) is already in use"
        case .permissionDenied(let host, let port): "permission denied binding \(host) port \(port)"
        case .alreadyStarted: "the server was already started"
        case .startFailed(let reason): "the HTTP server failed to start: \(reason)"
        }
    }
}
