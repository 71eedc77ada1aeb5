import Foundation
import Logging
import ServerSeam
import Synchronization

/// An SMTP server that catches every message sent to it into a `Mailer` (the dev mailbox), like
/// Mailpit: one mailbox entry per recipient, bodies MIME-decoded, codes and links pulled out.
///
/// One thread accepts clients and each connection gets a thread of its own that runs an
/// `SMTPSession` over framed lines (`MailCatcher+Serving`). Plain POSIX sockets, not SwiftNIO:
/// docs/ARCHITECTURE.md, "Dependencies".
public final class MailCatcher: Sendable {
    public let host: String
    public let requestedPort: Int
    public let limits: SMTPLimits
    /// A connection that sends nothing for this long gets `421` and is closed; one that takes none
    /// of a reply for this long is closed.
    public let idleTimeout: Duration
    /// Announced in the greeting and EHLO reply.
    public let hostname: String
    /// Longest line the framer accepts; data lines above RFC 5321's 1,000 still pass, up to this.
    static let maxLineBytes = 1 << 20

    let mailer: any Mailer
    let logger: Logger
    private let running = Mutex<Running?>(nil)

    /// What `start()` opened and `shutdown()` closes.
    private struct Running {
        var listener: ListeningSocket
        var wake: WakePipe
        var connections: OpenConnections
    }

    public init(
        host: String, port: Int, mailer: any Mailer, logger: Logger, limits: SMTPLimits = SMTPLimits(),
        idleTimeout: Duration = .seconds(5 * 60), hostname: String = "gatehouse.local"
    ) {
        self.host = host
        self.requestedPort = port
        self.mailer = mailer
        self.logger = logger
        self.limits = limits
        self.idleTimeout = idleTimeout
        self.hostname = hostname
    }

    /// The bound port once started (useful with port 0); 0 before `start()`.
    public var port: Int { running.withLock { $0?.listener.port ?? 0 } }

    /// Binds and starts accepting connections; returns once the port is bound.
    public func start() async throws {
        let listener = try ListeningSocket(host: host, port: requestedPort)
        let wake: WakePipe
        do {
            wake = try WakePipe()
        } catch {
            listener.stopListening()
            throw error
        }
        let connections = OpenConnections()
        connections.threadStarting()
        Self.startThread(named: "smtp-accept") { [self] in
            acceptClients(from: listener, until: wake, into: connections)
            connections.threadEnded()
        }
        running.withLock { $0 = Running(listener: listener, wake: wake, connections: connections) }
    }

    /// Stops accepting, closes open connections (a message in the middle of DATA is dropped, one
    /// being stored is stored first) and waits for every connection's thread to end.
    public func shutdown() async {
        guard let running = running.withLock({ $0.take() }) else { return }
        running.wake.wake()
        await running.connections.closeAll()
        running.listener.stopListening()
        running.wake.closeBothEnds()
    }

    /// The accept loop: a thread for each client until `wake`. Out of descriptors or memory, it
    /// tries again a second later rather than spin; any other failure ends it, logged.
    private func acceptClients(from listener: ListeningSocket, until wake: WakePipe, into connections: OpenConnections) {
        while true {
            let next: ClientSocket?
            do throws(SMTPSocketError) {
                next = try listener.nextClient(unlessWoken: wake)
            } catch {
                guard error.isExhaustion else {
                    logger.error("SMTP accept loop ended", metadata: ["error": "\(error)"])
                    return
                }
                logger.error("SMTP accept failed; trying again in a second", metadata: ["error": "\(error)"])
                if wake.waitForWake(upTo: .seconds(1)) { return }
                continue
            }
            guard let client = next else { return }
            switch connections.admit(client, limit: limits.maxConnections) {
            case .admitted:
                break
            case .full:
                // One short try at the reply, never a wait: the accept loop serves no one.
                client.tryWrite(SMTPReply(421, "\(hostname) Too many connections, try again later").wire)
                connections.turnAway(client)
                continue
            case .closing:
                connections.turnAway(client)
                continue
            }
            Self.startThread(named: "smtp-connection") { [self] in
                serve(client)
                connections.release(client)
            }
        }
    }

    private static func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}
