import Foundation

/// A received message decoded far enough for the dev mailbox: its subject and its first text and
/// HTML bodies, found through nested `multipart/*` parts, with transfer encodings and charsets undone.
public struct MIMEMessage: Sendable, Equatable {
    /// Subject with RFC 2047 encoded-words decoded; empty when missing.
    public var subject: String
    /// The first `text/plain` part that is not an attachment, with LF line ends.
    public var text: String?
    /// The first `text/html` part that is not an attachment, with LF line ends.
    public var html: String?

    /// Nesting deeper than this is not followed (a hostile message cannot recurse without end).
    static let maxDepth = 16

    public init(subject: String, text: String?, html: String?) {
        self.subject = subject
        self.text = text
        self.html = html
    }

    /// Parses a whole RFC 5322 message (header, empty line, body).
    public init(parsing bytes: some Collection<UInt8>) {
        let root = MIMEPart(lines: MIMEPart.lines(bytes)[...])
        subject = root.header("Subject").map(EncodedWords.decode) ?? ""
        text = nil
        html = nil
        collect(root, depth: 0)
    }

    private mutating func collect(_ part: MIMEPart, depth: Int) {
        guard depth < Self.maxDepth, !part.isAttachment else { return }
        let type = part.contentType
        if type.value.hasPrefix("multipart/") {
            guard let boundary = type["boundary"], !boundary.isEmpty else { return }
            for child in Self.children(of: part.body, boundary: boundary) {
                collect(MIMEPart(lines: child), depth: depth + 1)
            }
        } else if type.value == "text/plain" && text == nil {
            text = Self.text(part, charset: type["charset"])
        } else if type.value == "text/html" && html == nil {
            html = Self.text(part, charset: type["charset"])
        }
    }

    private static func text(_ part: MIMEPart, charset: String?) -> String {
        Charset.decode(part.decodedBody, charset: charset)
            .replacingOccurrences(of: "\r\n", with: "\n")
    }

    /// The parts between `--boundary` lines, up to `--boundary--` (RFC 2046 §5.1.1); the preamble and
    /// epilogue are dropped, and trailing whitespace after a delimiter is allowed.
    static func children(of body: [ArraySlice<UInt8>], boundary: String) -> [ArraySlice<ArraySlice<UInt8>>] {
        let delimiter = Array("--\(boundary)".utf8)
        let closing = delimiter + Array("--".utf8)
        var parts: [ArraySlice<ArraySlice<UInt8>>] = []
        var start: Int?
        for (index, rawLine) in body.enumerated() {
            var line = rawLine
            while let last = line.last, last == 32 || last == 9 { line.removeLast() }
            let isClosing = line.elementsEqual(closing)
            guard isClosing || line.elementsEqual(delimiter) else { continue }
            if let start { parts.append(body[start..<index]) }
            if isClosing { return parts }
            start = index + 1
        }
        // A message cut short before its closing delimiter still shows what arrived.
        if let start { parts.append(body[start...]) }
        return parts
    }
}
