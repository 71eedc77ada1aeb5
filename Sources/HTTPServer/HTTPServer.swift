internal import CMicroHTTPD
import Logging

/// An HTTP/1.1 server on libmicrohttpd that hands fully read requests to an async `Responder`.
///
/// It binds only the configured address, enforces body, header, connection and timeout limits,
/// decodes request targets strictly (400 before the responder) and logs one access line per
/// request at `.info` (method, path without query, status, duration, peer).
public final class HTTPServer: Sendable {
    private enum Phase {
        case idle
        case starting
        case running(daemon: OpaquePointer, port: Int)
        case stopping
        case stopped

        var isTransitioning: Bool {
            switch self {
            case .starting, .stopping: true
            case .idle, .running, .stopped: false
            }
        }
    }

    private let core: ServerCore
    private let phase = Locked(Phase.idle)

    /// `rejections` renders the client errors answered before `responder` runs (e.g. the router's
    /// `rejectionRenderer`, so each API family keeps its envelope); plain text when nil.
    public init(
        configuration: Configuration = Configuration(), logger: Logger, responder: @escaping Responder,
        rejections: RejectionRenderer? = nil
    ) {
        self.core = ServerCore(configuration: configuration, logger: logger, responder: responder, rejections: rejections)
    }

    public var configuration: Configuration { core.configuration }

    /// Binds and starts serving; throws why not (address in use, bad host, …).
    public func start() throws(HTTPServerError) {
        let claimed = phase.withLock { phase in
            guard case .idle = phase else { return false }
            phase = .starting
            return true
        }
        guard claimed else { throw .alreadyStarted }
        do {
            let (daemon, port) = try core.startDaemon()
            phase.withLock { $0 = .running(daemon: daemon, port: port) }
        } catch {
            phase.withLock { $0 = .idle }
            throw error
        }
        core.logger.info("listening", metadata: ["host": "\(core.configuration.host)", "port": "\(port)"])
    }

    /// The port actually bound (the configured one until started; real one after port 0).
    public var port: Int {
        phase.withLock { phase in
            if case .running(_, let port) = phase { return port }
            return core.configuration.port
        }
    }

    /// Requests received and not yet completed (what shutdown waits for).
    public var activeRequestCount: Int { core.inFlightCount }

    /// Requests completed since the server started (how a caller tells busy from idle).
    public var completedRequestCount: Int { core.completedCount }

    /// Stops accepting connections, lets requests in flight finish for up to `gracePeriod`,
    /// answers any still running with 503, then stops. Safe to call more than once or concurrently;
    /// every call returns once the server has stopped.
    public func shutdown(gracePeriod: Duration = .seconds(10)) async {
        let daemon: OpaquePointer? = phase.withLock { phase in
            guard case .running(let daemon, _) = phase else {
                if case .idle = phase { phase = .stopped }
                return nil
            }
            phase = .stopping
            return daemon
        }
        guard let daemon else {
            while phase.withLock({ $0.isTransitioning }) {
                try? await Task.sleep(for: .milliseconds(5))
            }
            return
        }
        await core.stopDaemon(daemon, gracePeriod: gracePeriod)
        phase.withLock { $0 = .stopped }
        core.logger.info("stopped")
    }

    deinit {
        // A running daemon holds an unretained pointer to `core`; stop it before `core` goes.
        if case .running(let daemon, _) = phase.withLock({ $0 }) {
            _ = core.abandonSuspended()
            core.streams.finishAll()
            MHD_stop_daemon(daemon)
            core.connections.stopSweeping()
        }
    }
}
