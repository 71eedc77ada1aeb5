import Foundation

/// The server side of one SMTP conversation (RFC 5321) as a pure state machine: feed it lines,
/// perform the actions it returns. It never touches a socket, so every reply is testable alone.
///
/// Supported: EHLO/HELO, MAIL (SIZE, BODY, SMTPUTF8, AUTH parameters), RCPT, DATA with dot-unstuffing,
/// RSET, NOOP, QUIT, VRFY (252), HELP, and AUTH PLAIN/LOGIN accepting any credentials (a dev sink, like
/// Mailpit's `--smtp-auth-accept-any`). STARTTLS and the other known-but-unimplemented verbs get 502.
public struct SMTPSession: Sendable {
    /// What the connection must do next, in order.
    public enum Action: Sendable, Equatable {
        case reply(SMTPReply)
        /// Store the message, then answer with `deliveryReply(stored:)`.
        case deliver(SMTPEnvelope)
        case close
    }

    enum AuthStep: Sendable, Equatable {
        case plainResponse, loginUsername, loginPassword
    }

    enum State: Sendable, Equatable {
        case awaitingHello
        case ready
        case transaction(sender: String, recipients: [String])
        case data(sender: String, recipients: [String], buffer: [UInt8], overflow: Bool)
        case authenticating(AuthStep)
        case closed
    }

    public let hostname: String
    public let limits: SMTPLimits
    private(set) var state: State = .awaitingHello
    private var extended = false
    private var authenticated = false
    private var errors = 0

    public init(hostname: String = "gatehouse.local", limits: SMTPLimits = SMTPLimits()) {
        self.hostname = hostname
        self.limits = limits
    }

    /// The 220 banner sent as soon as a client connects.
    public var greeting: SMTPReply { SMTPReply(220, "\(hostname) ESMTP Gatehouse mail catcher") }

    /// The answer once a `.deliver` has been stored (250) or could not be (451, the sender may retry).
    public static func deliveryReply(stored: Bool) -> SMTPReply {
        stored ? SMTPReply(250, "OK: message stored") : SMTPReply(451, "Local error in processing; try again later")
    }

    /// The lines after `250-hostname` in the EHLO reply.
    var extensions: [String] {
        ["SIZE \(limits.maxMessageBytes)", "8BITMIME", "SMTPUTF8", "AUTH PLAIN LOGIN", "HELP"]
    }

    /// Consumes one line (without its CRLF); `overlong` says the line was cut off by the framer.
    public mutating func receive(_ line: [UInt8], overlong: Bool = false) -> [Action] {
        switch state {
        case .closed:
            return []
        case .data(let sender, let recipients, var buffer, var overflow):
            // Drop the state's reference first so appending does not copy the whole buffer per line.
            state = .ready
            if !overlong && line == [UInt8(ascii: ".")] {
                if overflow { return [.reply(SMTPReply(552, "Message exceeds fixed maximum message size"))] }
                return [.deliver(SMTPEnvelope(sender: sender, recipients: recipients, data: buffer))]
            }
            if !overflow {
                // RFC 5321 §4.5.2: a leading dot was doubled by the client; take one away.
                let content = line.first == UInt8(ascii: ".") ? line.dropFirst() : line[...]
                if overlong || buffer.count + content.count + 2 > limits.maxMessageBytes {
                    overflow = true
                    buffer = []
                } else {
                    buffer.append(contentsOf: content)
                    buffer.append(contentsOf: [13, 10])
                }
            }
            state = .data(sender: sender, recipients: recipients, buffer: buffer, overflow: overflow)
            return []
        case .authenticating(let step):
            return counted(authenticate(step, response: String(decoding: line, as: UTF8.self)))
        default:
            if overlong || line.count > limits.maxCommandBytes { return counted([.reply(SMTPReply(500, "Line too long"))]) }
            return counted(command(String(decoding: line, as: UTF8.self)))
        }
    }

    /// Counts failed commands in a row; too many ends the connection (a confused or hostile client).
    private mutating func counted(_ actions: [Action]) -> [Action] {
        guard case .reply(let reply)? = actions.first, reply.code >= 500 else {
            errors = 0
            return actions
        }
        errors += 1
        guard errors >= limits.maxErrors else { return actions }
        state = .closed
        return [.reply(SMTPReply(421, "\(hostname) Too many errors, closing connection")), .close]
    }

    private mutating func command(_ line: String) -> [Action] {
        let (verb, argument) = Self.split(line)
        switch verb {
        case "EHLO", "HELO":
            guard !argument.isEmpty else { return reply(501, "Syntax: \(verb) hostname") }
            extended = verb == "EHLO"
            state = .ready
            let first = "\(hostname) greets \(argument)"
            return extended ? [.reply(SMTPReply(code: 250, lines: [first] + extensions))] : reply(250, first)
        case "MAIL":
            return mail(argument)
        case "RCPT":
            return recipient(argument)
        case "DATA":
            guard argument.isEmpty else { return reply(501, "Syntax: DATA") }
            guard case .transaction(let sender, let recipients) = state else {
                return reply(503, state == .awaitingHello ? "Send EHLO first" : "Need MAIL command")
            }
            guard !recipients.isEmpty else { return reply(503, "Need RCPT command") }
            state = .data(sender: sender, recipients: recipients, buffer: [], overflow: false)
            return reply(354, "End data with <CR><LF>.<CR><LF>")
        case "RSET":
            guard argument.isEmpty else { return reply(501, "Syntax: RSET") }
            if state != .awaitingHello { state = .ready }
            return reply(250, "OK")
        case "NOOP":
            return reply(250, "OK")
        case "QUIT":
            state = .closed
            return [.reply(SMTPReply(221, "\(hostname) closing connection")), .close]
        case "VRFY":
            return reply(252, "Cannot VRFY user, but will accept message and attempt delivery")
        case "HELP":
            return reply(214, "Commands: EHLO HELO MAIL RCPT DATA RSET NOOP QUIT AUTH VRFY HELP")
        case "AUTH":
            return startAuthentication(argument)
        case "STARTTLS", "EXPN", "TURN", "ETRN", "BDAT", "ATRN", "SEND", "SOML", "SAML":
            return reply(502, "Command not implemented")
        default:
            return reply(500, "Command not recognized")
        }
    }

    private mutating func mail(_ argument: String) -> [Action] {
        switch state {
        case .awaitingHello: return reply(503, "Send EHLO first")
        case .transaction: return reply(503, "Nested MAIL command")
        default: break
        }
        guard let (sender, parameters) = Self.path(argument, prefix: "FROM:") else {
            return reply(501, "Syntax: MAIL FROM:<address>")
        }
        for parameter in parameters {
            let parts = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            switch (parts[0].uppercased(), parts.count > 1 ? parts[1] : nil) {
            case ("SIZE", let value?):
                guard let size = Int(value) else { return reply(501, "Bad SIZE parameter") }
                if size > limits.maxMessageBytes { return reply(552, "Message size exceeds fixed maximum message size") }
            case ("BODY", let value?):
                guard ["7BIT", "8BITMIME"].contains(value.uppercased()) else { return reply(501, "Bad BODY parameter") }
            case ("SMTPUTF8", nil), ("AUTH", _?):
                break
            default:
                return reply(555, "MAIL FROM parameter \(parts[0]) not recognized")
            }
        }
        state = .transaction(sender: sender, recipients: [])
        return reply(250, "OK")
    }

    private mutating func recipient(_ argument: String) -> [Action] {
        guard case .transaction(let sender, var recipients) = state else {
            return reply(503, state == .awaitingHello ? "Send EHLO first" : "Need MAIL command")
        }
        guard let (address, parameters) = Self.path(argument, prefix: "TO:") else {
            return reply(501, "Syntax: RCPT TO:<address>")
        }
        guard parameters.isEmpty else { return reply(555, "RCPT TO parameters not recognized") }
        guard address.contains("@") || address.lowercased() == "postmaster" else {
            return reply(501, "Bad recipient address syntax")
        }
        guard recipients.count < limits.maxRecipients else { return reply(452, "Too many recipients") }
        recipients.append(address)
        state = .transaction(sender: sender, recipients: recipients)
        return reply(250, "OK")
    }

    private mutating func startAuthentication(_ argument: String) -> [Action] {
        guard extended, state == .ready else { return reply(503, "AUTH not allowed now") }
        guard !authenticated else { return reply(503, "Already authenticated") }
        let parts = argument.split(separator: " ", maxSplits: 1).map(String.init)
        let initial = parts.count > 1 ? parts[1] : nil
        switch parts.first?.uppercased() {
        case "PLAIN":
            guard let initial else {
                state = .authenticating(.plainResponse)
                return [.reply(SMTPReply(334, ""))]
            }
            return authenticate(.plainResponse, response: initial)
        case "LOGIN":
            guard let initial else {
                state = .authenticating(.loginUsername)
                return [.reply(SMTPReply(334, "VXNlcm5hbWU6"))]
            }
            return authenticate(.loginUsername, response: initial)
        default:
            return reply(504, "Unrecognized authentication mechanism")
        }
    }

    /// Any well-formed credentials are accepted: this is a catcher, not a relay.
    private mutating func authenticate(_ step: AuthStep, response: String) -> [Action] {
        state = .ready
        if response == "*" { return reply(501, "Authentication cancelled") }
        guard let decoded = Data(base64Encoded: response) else { return reply(501, "Invalid base64 data") }
        switch step {
        case .plainResponse:
            // RFC 4616: authzid NUL authcid NUL passwd.
            guard decoded.split(separator: 0, omittingEmptySubsequences: false).count == 3 else {
                return reply(501, "Malformed PLAIN response")
            }
        case .loginUsername:
            state = .authenticating(.loginPassword)
            return [.reply(SMTPReply(334, "UGFzc3dvcmQ6"))]
        case .loginPassword:
            break
        }
        authenticated = true
        return reply(235, "Authentication successful")
    }

    private func reply(_ code: Int, _ text: String) -> [Action] { [.reply(SMTPReply(code, text))] }

    /// `"MAIL FROM:<a@b> SIZE=1"` → (`"MAIL"`, `"FROM:<a@b> SIZE=1"`).
    static func split(_ line: String) -> (verb: String, argument: String) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " ") else { return (trimmed.uppercased(), "") }
        return (trimmed[..<space].uppercased(), trimmed[space...].trimmingCharacters(in: .whitespaces))
    }

    /// Parses `FROM:<path> PARAM=V …` (a space after the colon is tolerated, as most servers do);
    /// a source route `<@a,@b:user@c>` is reduced to its mailbox.
    static func path(_ argument: String, prefix: String) -> (String, [String])? {
        guard argument.uppercased().hasPrefix(prefix) else { return nil }
        let rest = argument.dropFirst(prefix.count).drop(while: { $0 == " " })
        guard rest.first == "<", let close = rest.firstIndex(of: ">") else { return nil }
        var address = String(rest[rest.index(after: rest.startIndex)..<close])
        if address.hasPrefix("@"), let colon = address.firstIndex(of: ":") {
            address = String(address[address.index(after: colon)...])
        }
        guard !address.contains(where: { $0 == " " || $0 == "<" }) else { return nil }
        let parameters = rest[rest.index(after: close)...].split(separator: " ").map(String.init)
        return (address, parameters)
    }
}
