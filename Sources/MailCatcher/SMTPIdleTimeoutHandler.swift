import NIOCore

/// Answers `IdleStateHandler`'s read timeout with `421` and closes, as RFC 5321 §4.5.3.2 allows a
/// server to do with a client that went quiet.
final class SMTPIdleTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let hostname: String

    init(hostname: String) {
        self.hostname = hostname
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        let reply = SMTPReply(421, "\(hostname) Idle timeout, closing connection")
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: reply.wire)), promise: nil)
        context.close(promise: nil)
    }
}
