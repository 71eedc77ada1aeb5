import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServerSeam

/// An SMTP server that catches every message sent to it into a `Mailer` (the dev mailbox), like
/// Mailpit: one mailbox entry per recipient, bodies MIME-decoded, codes and links pulled out.
/// SwiftNIO owns the sockets; each connection runs an `SMTPSession` over framed lines.
public final class MailCatcher: Sendable {
    public let host: String
    public let requestedPort: Int
    public let limits: SMTPLimits
    /// A connection that sends nothing for this long gets `421` and is closed.
    public let idleTimeout: TimeAmount
    /// Announced in the greeting and EHLO reply.
    public let hostname: String
    /// Longest line the framer accepts; data lines above RFC 5321's 1,000 still pass, up to this.
    static let maxLineBytes = 1 << 20

    private let mailer: any Mailer
    private let logger: Logger
    private let group: any EventLoopGroup
    private let running = NIOLockedValueBox<Running?>(nil)

    private struct Running {
        var port: Int
        var channel: any Channel
        var acceptLoop: Task<Void, Never>
    }

    public init(
        host: String, port: Int, mailer: any Mailer, logger: Logger, limits: SMTPLimits = SMTPLimits(),
        idleTimeout: TimeAmount = .minutes(5), hostname: String = "gatehouse.local",
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.host = host
        self.requestedPort = port
        self.mailer = mailer
        self.logger = logger
        self.limits = limits
        self.idleTimeout = idleTimeout
        self.hostname = hostname
        self.group = group
    }

    /// The bound port once started (useful with port 0); 0 before `start()`.
    public var port: Int { running.withLockedValue { $0?.port ?? 0 } }

    /// Binds and starts accepting connections; returns once the port is bound.
    public func start() async throws {
        let idleTimeout = idleTimeout
        let hostname = hostname
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: requestedPort) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handlers = channel.pipeline.syncOperations
                    try handlers.addHandler(IdleStateHandler(readTimeout: idleTimeout))
                    try handlers.addHandler(SMTPIdleTimeoutHandler(hostname: hostname))
                    try handlers.addHandler(ByteToMessageHandler(SMTPLineDecoder(maxLineBytes: Self.maxLineBytes)))
                    return try NIOAsyncChannel<SMTPLine, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let port = server.channel.localAddress?.port ?? requestedPort
        let acceptLoop = Task { [self] in
            do {
                try await server.executeThenClose { connections in
                    try await withThrowingDiscardingTaskGroup { group in
                        for try await connection in connections {
                            group.addTask { await self.serve(connection) }
                        }
                    }
                }
            } catch is CancellationError {
                // shutdown()
            } catch {
                logger.error("SMTP accept loop ended", metadata: ["error": "\(error)"])
            }
        }
        running.withLockedValue { $0 = Running(port: port, channel: server.channel, acceptLoop: acceptLoop) }
    }

    /// Stops accepting, closes open connections (a message in the middle of DATA is dropped) and waits.
    public func shutdown() async {
        guard
            let running = running.withLockedValue({ state in
                defer { state = nil }
                return state
            })
        else { return }
        running.acceptLoop.cancel()
        try? await running.channel.close()
        await running.acceptLoop.value
    }

    /// Runs one SMTP conversation until QUIT, an error, the idle timeout or shutdown.
    private func serve(_ connection: NIOAsyncChannel<SMTPLine, ByteBuffer>) async {
        let peer = connection.channel.remoteAddress.map { "\($0)" } ?? "?"
        do {
            try await connection.executeThenClose { lines, outbound in
                var session = SMTPSession(hostname: hostname, limits: limits)
                try await outbound.write(ByteBuffer(string: session.greeting.wire))
                for try await line in lines {
                    for action in session.receive(line.bytes, overlong: line.overlong) {
                        switch action {
                        case .reply(let reply):
                            try await outbound.write(ByteBuffer(string: reply.wire))
                        case .deliver(let envelope):
                            let stored = await deliver(envelope, peer: peer)
                            try await outbound.write(ByteBuffer(string: SMTPSession.deliveryReply(stored: stored).wire))
                        case .close:
                            return
                        }
                    }
                }
            }
        } catch {
            logger.debug("SMTP connection ended", metadata: ["peer": "\(peer)", "error": "\(error)"])
        }
    }

    /// Decodes the message and hands one copy per recipient to the mailer.
    private func deliver(_ envelope: SMTPEnvelope, peer: String) async -> Bool {
        let message = MIMEMessage(parsing: envelope.data)
        do {
            for mail in message.outgoingMails(recipients: envelope.recipients) {
                try await mailer.send(mail)
            }
            logger.info(
                "caught mail",
                metadata: [
                    "from": "\(envelope.sender)", "to": "\(envelope.recipients.joined(separator: ","))",
                    "subject": "\(message.subject)", "bytes": "\(envelope.data.count)", "peer": "\(peer)"
                ])
            return true
        } catch {
            logger.error("could not store caught mail", metadata: ["error": "\(error)", "peer": "\(peer)"])
            return false
        }
    }
}
