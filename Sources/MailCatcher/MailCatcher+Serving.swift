import Logging

extension MailCatcher {
    /// Runs one SMTP conversation on the client's own thread until QUIT, too many errors, the
    /// client leaving, the idle timeout (answered with `421`, as RFC 5321 §4.5.3.2 allows a server
    /// to do with a client that went quiet) or shutdown.
    func serve(_ client: ClientSocket) {
        var session = SMTPSession(hostname: hostname, limits: limits)
        var framer = SMTPLineFramer(maxLineBytes: Self.maxLineBytes)
        var received = [UInt8](repeating: 0, count: 64 * 1024)
        do throws(SMTPSocketError) {
            try client.write(session.greeting.wire, idleTimeout: idleTimeout)
            while true {
                let count = try client.read(into: &received, idleTimeout: idleTimeout)
                guard count > 0 else { return }
                for line in framer.lines(completedBy: received[..<count]) {
                    let actions = session.receive(line.bytes, overlong: line.overlong)
                    guard try perform(actions, for: client) else { return }
                }
            }
        } catch .readTimedOut {
            let reply = SMTPReply(421, "\(hostname) Idle timeout, closing connection")
            try? client.write(reply.wire, idleTimeout: idleTimeout)
        } catch {
            logger.debug("SMTP connection ended", metadata: ["peer": "\(client.peer)", "error": "\(error)"])
        }
    }

    /// Does what the session asked, in order; false when it asked to close.
    private func perform(_ actions: [SMTPSession.Action], for client: ClientSocket) throws(SMTPSocketError) -> Bool {
        for action in actions {
            switch action {
            case .reply(let reply):
                try client.write(reply.wire, idleTimeout: idleTimeout)
            case .deliver(let envelope):
                let stored = awaitFromThread { await self.deliver(envelope, peer: client.peer) }
                try client.write(SMTPSession.deliveryReply(stored: stored).wire, idleTimeout: idleTimeout)
            case .close:
                return false
            }
        }
        return true
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
