import Foundation
import Store

/// The dev mailbox read by a test suite's mail helper (the Mailpit-compatible API): pages of
/// messages, newest first, and one message, as Gatehouse's own words for them (never Store's rows).
public struct DevMailbox: Sendable {
    let mailbox: MailboxMailer

    public init(mailbox: MailboxMailer) { self.mailbox = mailbox }

    /// One message as a mail helper reads it.
    public struct Message: Sendable {
        public let id: String
        public let to: String
        public let subject: String
        public let text: String
        public let html: String
        public let createdAt: Date
    }

    /// Up to `limit` messages after skipping the `start` newest, only those to `to` when given,
    /// and how many there are in all.
    public func page(to: String?, start: Int, limit: Int) async throws -> (total: Int, messages: [Message]) {
        let (total, mails) = try await mailbox.page(to: to, start: start, limit: limit)
        return (total, mails.map(Self.message))
    }

    /// The message `id` (a mailbox id's decimal text); nil for none or an id of another shape.
    public func message(id: String) async throws -> Message? {
        guard let number = Int64(id), number > 0 else { return nil }
        return try await mailbox.mail(id: number).map(Self.message)
    }

    private static func message(_ record: MailRecord) -> Message {
        Message(
            id: String(record.id), to: record.recipient, subject: record.subject, text: record.text, html: record.html,
            createdAt: record.createdAt)
    }
}
