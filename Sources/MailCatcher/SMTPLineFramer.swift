/// One line from the client, without its line end; `overlong` when it was longer than the framer
/// allows (its bytes are then dropped).
struct SMTPLine: Sendable, Equatable {
    var bytes: [UInt8]
    var overlong = false
}

/// Frames the byte stream into lines ending in LF (a CR before it is removed), at most
/// `maxLineBytes` long. A longer line is reported once as `overlong` and skipped up to its end,
/// so a client cannot make the catcher buffer without bound. A partial line at the end of the
/// stream is not a command and is never reported.
struct SMTPLineFramer {
    let maxLineBytes: Int
    /// Bytes received and not yet framed start at `start`; what lies before it is compacted away
    /// once per read, not once per line.
    private var buffer: [UInt8] = []
    private var start = 0
    /// Bytes after `start` already searched for LF, so a line arriving in many small reads is scanned once.
    private var searched = 0
    /// Skipping the rest of an overlong line up to its LF.
    private var discarding = false

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    /// Takes the next bytes read from the client and returns the lines they complete, in order.
    mutating func lines(completedBy bytes: some Collection<UInt8>) -> [SMTPLine] {
        buffer.append(contentsOf: bytes)
        var lines: [SMTPLine] = []
        while let newline = buffer[(start + searched)...].firstIndex(of: UInt8(ascii: "\n")) {
            if discarding {
                discarding = false
            } else {
                lines.append(line(endingAt: newline))
            }
            start = newline + 1
            searched = 0
        }
        searched = buffer.count - start
        if searched > maxLineBytes {
            if !discarding { lines.append(SMTPLine(bytes: [], overlong: true)) }
            discarding = true
            start = buffer.count
            searched = 0
        }
        if start > 0 {
            buffer.removeSubrange(..<start)
            start = 0
        }
        return lines
    }

    /// The line from `start` to the LF at `newline`, without its CR.
    private func line(endingAt newline: Int) -> SMTPLine {
        var end = newline
        if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let overlong = end - start > maxLineBytes
        return SMTPLine(bytes: overlong ? [] : Array(buffer[start..<end]), overlong: overlong)
    }
}
