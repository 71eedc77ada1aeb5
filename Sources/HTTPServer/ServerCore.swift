internal import CMicroHTTPD
import Logging

/// What the C callbacks reach through `cls`: configuration, responder and the bookkeeping of
/// requests in flight that a graceful shutdown waits for.
final class ServerCore: Sendable {
    let configuration: HTTPServer.Configuration
    let logger: Logger
    /// The application's handlers, dropped once the daemon has stopped: a stopped server then no
    /// longer keeps what the application holds (its database, its threads, its hashing memory).
    private let handlers: Locked<Handlers?>

    private struct Handlers {
        let responder: Responder
        /// Renders the errors answered before the responder runs (`HTTPServer.init`).
        let rejections: RejectionRenderer
    }

    private struct Tracking {
        /// Requests between their request line and NOTIFY_COMPLETED.
        var inFlight = 0
        /// Requests completed since start.
        var completed = 0
        /// Requests suspended while their responder runs, by identity.
        var suspended: [ObjectIdentifier: RequestState] = [:]
        /// Set when shutdown stops waiting: late suspensions are answered 503 at once.
        var closing = false
        /// Set once shutdown began: responses ask clients to close their connection.
        var draining = false
        /// MHD's log lines while `start()` runs, to explain a failure.
        var startupLog: [String]?
    }

    private let tracking = Locked(Tracking())
    /// Streamed responses still open (`ServerCore+Streaming`).
    let streams = StreamRegistry()
    /// Open connections, for the header deadline and making room for newcomers.
    let connections: ConnectionRegistry

    init(
        configuration: HTTPServer.Configuration, logger: Logger, responder: @escaping Responder,
        rejections: RejectionRenderer? = nil
    ) {
        self.configuration = configuration
        self.logger = logger
        self.handlers = Locked(Handlers(responder: responder, rejections: rejections ?? Self.plainRejections))
        self.connections = ConnectionRegistry(limits: configuration.slowConnectionLimits)
    }

    /// The handler for a request; after `releaseHandlers()`, one that answers 503.
    var responder: Responder { handlers.withLock { $0?.responder } ?? Self.stopped }
    /// How errors found before the responder runs are rendered; plain text after `releaseHandlers()`.
    var rejections: RejectionRenderer { handlers.withLock { $0?.rejections } ?? Self.plainRejections }

    private static let stopped: Responder = { _ in .text("The server has stopped.\n", status: 503) }
    private static let plainRejections: RejectionRenderer = { status, message, _ in .text(message + "\n", status: status) }

    /// Lets go of the application's handlers (called once the daemon has stopped).
    func releaseHandlers() { handlers.withLock { $0 = nil } }

    var inFlightCount: Int { tracking.withLock { $0.inFlight } }
    var completedCount: Int { tracking.withLock { $0.completed } }
    var isDraining: Bool { tracking.withLock { $0.draining } }

    /// Creates the state for a new request (called from MHD's URI log callback).
    func beginRequest(rawTarget: [UInt8], connection: OpaquePointer) -> RequestState {
        var buffer = [CChar](repeating: 0, count: 64)
        let kind = gh_client_address(connection, &buffer, buffer.count)
        let address =
            kind < 0 ? "unknown" : String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        tracking.withLock { $0.inFlight += 1 }
        connections.requestLineReceived(Int(bitPattern: connection))
        return RequestState(rawTarget: rawTarget, remoteAddress: address, isLoopbackPeer: kind == 1)
    }

    /// Forgets a request (called from NOTIFY_COMPLETED).
    func endRequest(_ state: RequestState) {
        state.isCompleted = true
        tracking.withLock { tracking in
            tracking.inFlight -= 1
            tracking.completed += 1
        }
    }

    /// Records a suspended request; false when shutdown already stopped waiting.
    func registerSuspended(_ state: RequestState) -> Bool {
        tracking.withLock { tracking in
            guard !tracking.closing else { return false }
            tracking.suspended[ObjectIdentifier(state)] = state
            return true
        }
    }

    func unregisterSuspended(_ state: RequestState) {
        _ = tracking.withLock { $0.suspended.removeValue(forKey: ObjectIdentifier(state)) }
    }

    func beginDraining() {
        tracking.withLock { $0.draining = true }
    }

    /// Answers every request still waiting for its responder with 503 and cancels the work,
    /// so no connection is suspended when the daemon stops (MHD forbids that).
    func abandonSuspended() -> [RequestState] {
        let pending = tracking.withLock { tracking in
            tracking.closing = true
            defer { tracking.suspended.removeAll() }
            return Array(tracking.suspended.values)
        }
        return pending.filter { $0.deliver(Self.shuttingDown, cancellingTask: true) }
    }

    /// Starts collecting MHD log lines (during `start()`).
    func captureStartupLog(_ enabled: Bool) -> [String] {
        tracking.withLock { tracking in
            defer { tracking.startupLog = enabled ? [] : nil }
            return tracking.startupLog ?? []
        }
    }

    /// Logs a line from MHD's error log.
    func mhdLog(_ message: String) {
        let capturing = tracking.withLock { tracking in
            tracking.startupLog?.append(message)
            return tracking.startupLog != nil
        }
        if !capturing {
            logger.notice("libmicrohttpd", metadata: ["message": "\(message)"])
        }
    }

    static let shuttingDown: Response = {
        var response = Response.text("Service Unavailable\n", status: 503)
        response.headers.add("Connection", "close")
        return response
    }()
}
