import Testing

@testable import MailCatcher

/// Drives the state machine line by line, the way a client would.
struct Conversation {
    var session: SMTPSession

    init(limits: SMTPLimits = SMTPLimits()) {
        session = SMTPSession(hostname: "catcher.test", limits: limits)
    }

    mutating func send(_ line: String) -> [SMTPSession.Action] {
        session.receive(Array(line.utf8))
    }

    /// The single reply code for `line`.
    mutating func code(_ line: String) -> Int? {
        guard case .reply(let reply)? = send(line).first else { return nil }
        return reply.code
    }
}

@Suite struct SMTPSessionTests {
    @Test func greetsWith220AndAdvertisesExtensionsOnEHLO() {
        var client = Conversation()
        #expect(client.session.greeting.wire == "220 catcher.test ESMTP Gatehouse mail catcher\r\n")
        let actions = client.send("EHLO client.example")
        guard case .reply(let reply)? = actions.first else {
            Issue.record("no reply")
            return
        }
        #expect(reply.code == 250)
        #expect(
            reply.lines == [
                "catcher.test greets client.example", "SIZE 10485760", "8BITMIME", "SMTPUTF8",
                "AUTH PLAIN LOGIN", "HELP"
            ])
        #expect(reply.wire.hasPrefix("250-catcher.test greets client.example\r\n250-SIZE 10485760\r\n"))
        #expect(reply.wire.hasSuffix("250 HELP\r\n"))
    }

    @Test func heloGetsAOneLineReplyAndNeedsAnArgument() {
        var client = Conversation()
        #expect(client.code("HELO") == 501)
        #expect(client.send("helo client") == [.reply(SMTPReply(250, "catcher.test greets client"))])
    }

    @Test func acceptsAWholeTransactionAndUnstuffsDots() {
        var client = Conversation()
        #expect(client.code("EHLO c") == 250)
        #expect(client.code("MAIL FROM:<app@example.com> SIZE=120 BODY=8BITMIME") == 250)
        #expect(client.code("RCPT TO:<a@example.com>") == 250)
        #expect(client.code("rcpt to: <b@example.com>") == 250)
        #expect(client.code("DATA") == 354)
        for line in ["Subject: hi", "", "..leading dot", "body"] { #expect(client.send(line).isEmpty) }
        let end = client.send(".")
        #expect(
            end == [
                .deliver(
                    SMTPEnvelope(
                        sender: "app@example.com", recipients: ["a@example.com", "b@example.com"],
                        data: Array("Subject: hi\r\n\r\n.leading dot\r\nbody\r\n".utf8)))
            ])
        // The transaction is over: a new one may start, and DATA alone is out of sequence.
        #expect(client.code("DATA") == 503)
        #expect(client.code("MAIL FROM:<>") == 250)
    }

    @Test func outOfSequenceCommandsGet503() {
        var client = Conversation()
        #expect(client.code("MAIL FROM:<a@example.com>") == 503)
        #expect(client.code("RCPT TO:<a@example.com>") == 503)
        #expect(client.code("EHLO c") == 250)
        #expect(client.code("RCPT TO:<a@example.com>") == 503)
        #expect(client.code("MAIL FROM:<a@example.com>") == 250)
        #expect(client.code("MAIL FROM:<a@example.com>") == 503)
        #expect(client.code("DATA") == 503)
    }

    @Test func syntaxErrorsGet500Or501AndUnimplementedVerbs502() {
        var client = Conversation()
        #expect(client.code("EHLO c") == 250)
        #expect(client.code("BOGUS") == 500)
        #expect(client.code("") == 500)
        #expect(client.code("STARTTLS") == 502)
        #expect(client.code("MAIL FROM:a@example.com") == 501)
        #expect(client.code("MAIL TO:<a@example.com>") == 501)
        #expect(client.code("MAIL FROM:<a@example.com> COLOR=blue") == 555)
        #expect(client.code("MAIL FROM:<a@example.com>") == 250)
        #expect(client.code("RCPT TO:<>") == 501)
        #expect(client.code("RCPT TO:<nobody>") == 501)
        #expect(client.code("RCPT TO:<postmaster>") == 250)
        #expect(client.code("DATA now") == 501)
        #expect(client.code("VRFY someone") == 252)
    }

    @Test func rsetEndsTheTransactionAndNoopChangesNothing() {
        var client = Conversation()
        #expect(client.code("EHLO c") == 250)
        #expect(client.code("MAIL FROM:<a@example.com>") == 250)
        #expect(client.code("RCPT TO:<b@example.com>") == 250)
        #expect(client.code("NOOP") == 250)
        #expect(client.code("RSET") == 250)
        #expect(client.code("DATA") == 503)
        #expect(client.code("MAIL FROM:<a@example.com>") == 250)
    }

    @Test func quitReplies221AndCloses() {
        var client = Conversation()
        #expect(client.send("QUIT") == [.reply(SMTPReply(221, "catcher.test closing connection")), .close])
        #expect(client.send("NOOP").isEmpty)
    }

    @Test func messagesOverTheSizeLimitGet552() {
        var client = Conversation(limits: SMTPLimits(maxMessageBytes: 64))
        #expect(client.code("EHLO c") == 250)
        #expect(client.code("MAIL FROM:<a@example.com> SIZE=65") == 552)
        #expect(client.code("MAIL FROM:<a@example.com>") == 250)
        #expect(client.code("RCPT TO:<b@example.com>") == 250)
        #expect(client.code("DATA") == 354)
        for _ in 0..<10 { #expect(client.send("0123456789").isEmpty) }
        #expect(client.code(".") == 552)
        // The connection stays usable.
        #expect(client.code("MAIL FROM:<a@example.com>") == 250)
    }

    @Test func recipientsAreCappedWith452() {
        var client = Conversation(limits: SMTPLimits(maxRecipients: 2))
        #expect(client.code("EHLO c") == 250)
        #expect(client.code("MAIL FROM:<a@example.com>") == 250)
        #expect(client.code("RCPT TO:<1@example.com>") == 250)
        #expect(client.code("RCPT TO:<2@example.com>") == 250)
        #expect(client.code("RCPT TO:<3@example.com>") == 452)
    }

    @Test func overlongCommandLinesGet500() {
        var client = Conversation()
        #expect(client.session.receive([], overlong: true) == [.reply(SMTPReply(500, "Line too long"))])
        #expect(client.code("NOOP " + String(repeating: "x", count: 5000)) == 500)
    }

    @Test func tooManyErrorsInARowClose421() {
        var client = Conversation(limits: SMTPLimits(maxErrors: 3))
        #expect(client.code("X") == 500)
        #expect(client.code("NOOP") == 250)
        #expect(client.code("X") == 500)
        #expect(client.code("X") == 500)
        let last = client.send("X")
        #expect(last.last == .close)
        #expect(last.first == .reply(SMTPReply(421, "catcher.test Too many errors, closing connection")))
    }

    @Test func authPlainAndLoginAcceptAnyCredentials() {
        var client = Conversation()
        #expect(client.code("AUTH PLAIN AHUAcA==") == 503)  // before EHLO
        #expect(client.code("EHLO c") == 250)
        #expect(client.code("AUTH CRAM-MD5") == 504)
        #expect(client.code("AUTH PLAIN !!!") == 501)
        #expect(client.code("AUTH PLAIN AHVzZXIAc2VjcmV0") == 235)  // "\0user\0secret"
        #expect(client.code("AUTH PLAIN AHVzZXIAc2VjcmV0") == 503)

        var login = Conversation()
        #expect(login.code("EHLO c") == 250)
        #expect(login.send("AUTH LOGIN") == [.reply(SMTPReply(334, "VXNlcm5hbWU6"))])
        #expect(login.send("dXNlcg==") == [.reply(SMTPReply(334, "UGFzc3dvcmQ6"))])
        #expect(login.code("c2VjcmV0") == 235)
        #expect(login.code("MAIL FROM:<a@example.com> AUTH=<>") == 250)

        var cancelled = Conversation()
        #expect(cancelled.code("EHLO c") == 250)
        #expect(cancelled.code("AUTH PLAIN") == 334)
        #expect(cancelled.code("*") == 501)
        #expect(cancelled.code("NOOP") == 250)
    }
}

@Suite struct SMTPListenAddressTests {
    @Test func parsesHostAndPortForms() {
        #expect(SMTPListenAddress("127.0.0.1:2525") == SMTPListenAddress(host: "127.0.0.1", port: 2525))
        #expect(SMTPListenAddress("[::1]:0") == SMTPListenAddress(host: "::1", port: 0))
        #expect(SMTPListenAddress(":2525") == SMTPListenAddress(host: "127.0.0.1", port: 2525))
        #expect(SMTPListenAddress("2525") == nil)
        #expect(SMTPListenAddress("::1:2525") == nil)
        #expect(SMTPListenAddress("localhost:70000") == nil)
    }
}
