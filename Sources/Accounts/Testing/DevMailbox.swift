import Foundation
import Secrets
import Store

/// The dev mailbox as the pages, the console and a test suite's mail helper (the Mailpit-compatible
/// API) read it: messages newest first, pages of them, and one message, as Gatehouse's own words for
/// them (`MailMessage`, never Store's rows). Staff empty it through `MailboxClearing`.
public struct DevMailbox: Sendable {
    let mailbox: MailboxMailer

    /// The reader of `database`'s mailbox; its mails open under a key derived from `hasher`'s.
    public init(database: AccountsDatabase, hasher: KeyedHash, clock: @escaping @Sendable () -> Date) throws {
        mailbox = try MailboxMailer(database: database.database, keyedHash: hasher, clock: clock)
    }

    /// Up to `limit` messages, newest first; only those to `to` (any letter case) when given, and
    /// only those newer than `after` when given.
    public func mails(to: String?, after: Int64? = nil, limit: Int) async throws -> [MailMessage] {
        try await mailbox.mails(to: to, after: after, limit: limit).map(MailMessage.init)
    }

    /// The newest message's id, 0 when there is none.
    public func newestID() async throws -> Int64 {
        try await mailbox.newestID()
    }

    /// Up to `limit` messages after skipping the `start` newest, only those to `to` when given,
    /// and how many there are in all.
    public func page(to: String?, start: Int, limit: Int) async throws -> (total: Int, messages: [MailMessage]) {
        let (total, mails) = try await mailbox.page(to: to, start: start, limit: limit)
        return (total, mails.map(MailMessage.init))
    }

    /// The message `id` (a mailbox id's decimal text); nil for none or an id of another shape.
    public func message(id: String) async throws -> MailMessage? {
        guard let number = Int64(id), number > 0 else { return nil }
        return try await mailbox.mail(id: number).map(MailMessage.init)
    }

    /// Deletes every message; returns how many there were (`MailboxClearing`, which audits it).
    func deleteAll() async throws -> Int {
        try await mailbox.deleteAll()
    }
}
