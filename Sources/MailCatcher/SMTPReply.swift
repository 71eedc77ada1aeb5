/// One SMTP reply: a three-digit code and one or more text lines (RFC 5321 §4.2).
public struct SMTPReply: Sendable, Equatable {
    public var code: Int
    public var lines: [String]

    public init(_ code: Int, _ lines: String...) {
        self.code = code
        self.lines = lines.isEmpty ? [""] : lines
    }

    public init(code: Int, lines: [String]) {
        self.code = code
        self.lines = lines.isEmpty ? [""] : lines
    }

    /// The reply on the wire: `250-first`, …, `250 last`, each ending in CRLF.
    public var wire: String {
        lines.enumerated().map { index, line in
            "\(code)\(index == lines.count - 1 ? " " : "-")\(line)\r\n"
        }.joined()
    }
}
