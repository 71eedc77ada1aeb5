import AuthCore
import Foundation
import Secrets
import ServerSeam

/// The dev mailbox: the `Mailer` that "sends" by saving into the `mails` table, stamped by the
/// given clock, and the one reader of what it saved. A mail's subject, text, html, code and link
/// are sealed at rest (`SecretBox` under a key derived from the key file's keyed-hash key) and
/// opened only here, so a copy of the SQLite file shows who was mailed and when, never a live code
/// or link (issue 22, item 13).
public struct MailboxMailer: Mailer {
    private let database: AppDatabase
    private let box: SecretBox
    private let clock: @Sendable () -> Date

    public init(
        database: AppDatabase, keyedHash: KeyedHash, clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.database = database
        box = try SecretBox(key: keyedHash.derivedKey(for: "mailbox"))
        self.clock = clock
    }

    public func send(_ mail: OutgoingMail) async throws {
        _ = try await database.saveMail(mail, at: clock(), sealedWith: box)
        RequestEffects.note("mail", mail.to)
    }

    /// Up to `limit` messages, newest first; only those to `to` (any letter case) when given, and
    /// only those newer than `after` when given.
    public func mails(to: String?, after: Int64? = nil, limit: Int) async throws -> [MailRecord] {
        try await database.mails(to: to, after: after, limit: limit, openedWith: box)
    }

    /// A page of messages, newest first, skipping the `start` newest (Mailpit's paging), and how
    /// many there are in all; only those to `to` (any letter case) when given.
    public func page(to: String?, start: Int, limit: Int) async throws -> (total: Int, mails: [MailRecord]) {
        (try await database.mailCount(to: to), try await database.mails(to: to, limit: limit, offset: start, openedWith: box))
    }

    /// The message `id`; nil when there is none.
    public func mail(id: Int64) async throws -> MailRecord? {
        try await database.mails(to: nil, limit: 1, id: id, openedWith: box).first
    }

    /// The newest message's id, 0 when there is none.
    public func newestID() async throws -> Int64 {
        try await database.newestMailID()
    }

    /// Deletes every message; returns how many there were. Staff clear it through `MailboxClearing`,
    /// which audits the act.
    public func deleteAll() async throws -> Int {
        try await database.deleteAllMails()
    }
}
