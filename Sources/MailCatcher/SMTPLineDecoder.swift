import NIOCore

/// One line from the client, without its line end; `overlong` when it was longer than the framer
/// allows (its bytes are then dropped).
struct SMTPLine: Sendable, Equatable {
    var bytes: [UInt8]
    var overlong = false
}

/// Frames the byte stream into lines ending in LF (a CR before it is removed), at most
/// `maxLineBytes` long. A longer line is reported once as `overlong` and skipped up to its end,
/// so a client cannot make the catcher buffer without bound.
struct SMTPLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPLine

    let maxLineBytes: Int
    private var discarding = false
    /// Bytes already searched for LF, so a line arriving in many small reads is scanned once.
    private var searched = 0

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        guard let newline = view[(view.startIndex + searched)...].firstIndex(of: UInt8(ascii: "\n")) else {
            searched = view.count
            if buffer.readableBytes > maxLineBytes {
                if !discarding {
                    discarding = true
                    context.fireChannelRead(wrapInboundOut(SMTPLine(bytes: [], overlong: true)))
                }
                buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
                searched = 0
            }
            return .needMoreData
        }
        searched = 0
        let length = newline - view.startIndex
        if discarding {
            discarding = false
            buffer.moveReaderIndex(forwardBy: length + 1)
            return .continue
        }
        var line = buffer.readBytes(length: length) ?? []
        buffer.moveReaderIndex(forwardBy: 1)
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        let overlong = line.count > maxLineBytes
        context.fireChannelRead(wrapInboundOut(SMTPLine(bytes: overlong ? [] : line, overlong: overlong)))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A partial line at end of stream is not a command; drop it.
        while try decode(context: context, buffer: &buffer) == .continue {}
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        return .needMoreData
    }
}
