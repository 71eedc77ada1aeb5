/// One message as SMTP handed it over: the envelope sender and recipients, and the raw DATA
/// (dot-unstuffed, lines ending in CRLF).
public struct SMTPEnvelope: Sendable, Equatable {
    /// The reverse path from `MAIL FROM`; empty for the null sender `<>`.
    public var sender: String
    /// Every accepted `RCPT TO`, in order.
    public var recipients: [String]
    public var data: [UInt8]

    public init(sender: String, recipients: [String], data: [UInt8]) {
        self.sender = sender
        self.recipients = recipients
        self.data = data
    }
}
