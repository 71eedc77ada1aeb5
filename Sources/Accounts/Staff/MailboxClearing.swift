import HTTPServer

/// Staff — or, while the mailbox is open on loopback, a test suite (no staff) — empty the dev
/// mailbox: the one owner of that act, so it is audited (who, how many, from where) whichever
/// front-end asks.
public struct MailboxClearing: Sendable {
    let env: Accounts
    let mailbox: DevMailbox
    /// Nil for a test suite on loopback (the Mailpit-compatible API).
    let staff: Staff?
    let request: Request
    /// Which front-end asked, kept in the audit event.
    let via: String

    public init(env: Accounts, mailbox: DevMailbox, staff: Staff?, request: Request, via: String) {
        self.env = env
        self.mailbox = mailbox
        self.staff = staff
        self.request = request
        self.via = via
    }

    /// Deletes every message; returns how many there were.
    public func clear() async throws -> Int {
        let count = try await mailbox.deleteAll()
        await env.audit.record(
            .mailboxCleared, actor: staff?.superuser.id, request: request,
            data: ["count": .number(Double(count)), "via": .string(via)])
        return count
    }
}
