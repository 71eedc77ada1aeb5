/// How much one SMTP connection may ask of the catcher.
public struct SMTPLimits: Sendable, Equatable {
    /// Largest message accepted, in bytes; larger ones get `552` (advertised as `SIZE`).
    public var maxMessageBytes: Int
    /// Recipients per message; the next `RCPT` gets `452`.
    public var maxRecipients: Int
    /// Longest command line, in bytes (RFC 5321 §4.5.3.1.4 says 512; AUTH may need more).
    public var maxCommandBytes: Int
    /// Failed commands in a row before the connection is closed with `421`.
    public var maxErrors: Int
    /// Clients connected at once; the next one gets `421` and is closed (each client holds a thread).
    public var maxConnections: Int

    public init(
        maxMessageBytes: Int = 10 << 20, maxRecipients: Int = 100, maxCommandBytes: Int = 4096, maxErrors: Int = 20,
        maxConnections: Int = 128
    ) {
        self.maxMessageBytes = maxMessageBytes
        self.maxRecipients = maxRecipients
        self.maxCommandBytes = maxCommandBytes
        self.maxErrors = maxErrors
        self.maxConnections = maxConnections
    }
}
