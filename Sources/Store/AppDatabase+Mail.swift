import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// Keeps a sent message in the dev mailbox.
    public func saveMail(_ mail: OutgoingMail, at now: Date) async throws -> MailRecord {
        try await pool.write { db in
            let normalized = EmailAddress.normalize(mail.to)
            try db.execute(
                sql: """
                    INSERT INTO mails (recipient, recipient_normalized, subject, text, html, code, link, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [mail.to, normalized, mail.subject, mail.text, mail.html, mail.code, mail.link, now.storedText])
            return MailRecord(
                id: db.lastInsertedRowID, recipient: mail.to, recipientNormalized: normalized, subject: mail.subject,
                text: mail.text, html: mail.html, code: mail.code, link: mail.link, createdAt: now)
        }
    }

    /// Up to `limit` messages, newest first; only those to `to` (any letter case) when given.
    public func mails(to: String?, limit: Int) async throws -> [MailRecord] {
        try await pool.read { db in
            var request = MailRecord.order(MailRecord.CodingKeys.id.desc).limit(max(0, limit))
            if let to {
                request = request.filter(MailRecord.CodingKeys.recipientNormalized == EmailAddress.normalize(to))
            }
            return try request.fetchAll(db)
        }
    }
}
