import AuthCore
import Foundation
import GRDB
import Secrets
import ServerSeam

extension AppDatabase {
    /// What a mail says, kept as one sealed value in `mails.content_sealed`.
    private struct MailContent: Codable {
        var subject: String
        var text: String
        var html: String
        var code: String?
        var link: String?
        var kind: String?
    }

    /// Keeps a sent message in the dev mailbox, its content sealed with `box` (`MailboxMailer`).
    func saveMail(_ mail: OutgoingMail, at now: Date, sealedWith box: SecretBox) async throws -> MailRecord {
        let content = MailContent(
            subject: mail.subject, text: mail.text, html: mail.html, code: mail.code, link: mail.link, kind: mail.kind?.rawValue)
        let sealed = box.seal(String(decoding: try JSONEncoder().encode(content), as: UTF8.self))
        let normalized = EmailAddress.normalize(mail.to)
        let id = try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO mails (recipient, recipient_normalized, content_sealed, created_at) VALUES (?, ?, ?, ?)",
                arguments: [mail.to, normalized, Data(sealed), now.storedText])
            return db.lastInsertedRowID
        }
        return MailRecord(
            id: id, recipient: mail.to, recipientNormalized: normalized, subject: mail.subject, text: mail.text,
            html: mail.html, code: mail.code, link: mail.link, kind: mail.kind?.rawValue, createdAt: now)
    }

    /// Up to `limit` messages, newest first, opened with `box`; only those to `to` (any letter case)
    /// when given, and only those newer than the message `after` when given (what a live view has
    /// not shown yet). A mail that does not open (sealed under a key file since replaced) is left out.
    /// `offset` skips that many of the newest; `id` keeps only that message.
    func mails(
        to: String?, after: Int64? = nil, limit: Int, offset: Int = 0, id: Int64? = nil, openedWith box: SecretBox
    ) async throws -> [MailRecord] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let id {
            conditions.append("id = ?")
            arguments += [id]
        }
        if let to {
            conditions.append("recipient_normalized = ?")
            arguments += [EmailAddress.normalize(to)]
        }
        if let after {
            conditions.append("id > ?")
            arguments += [after]
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = """
            SELECT id, recipient, recipient_normalized, content_sealed, created_at FROM mails
            \(filter) ORDER BY id DESC LIMIT ? OFFSET ?
            """
        arguments += [max(0, limit), max(0, offset)]
        let bound = arguments
        return try await pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: bound).compactMap { row in
                guard let sealed = row["content_sealed"] as Data?, let json = try? box.open(Array(sealed)),
                    let content = try? JSONDecoder().decode(MailContent.self, from: Data(json.utf8)),
                    let createdAt = row.storedDate("created_at")
                else { return nil }
                return MailRecord(
                    id: row["id"], recipient: row["recipient"], recipientNormalized: row["recipient_normalized"],
                    subject: content.subject, text: content.text, html: content.html, code: content.code,
                    link: content.link, kind: content.kind, createdAt: createdAt)
            }
        }
    }

    /// How many messages there are, only those to `to` (any letter case) when given.
    func mailCount(to: String?) async throws -> Int {
        try await pool.read { db in
            guard let to else { return try Int.fetchOne(db, sql: "SELECT count(*) FROM mails") ?? 0 }
            return try Int.fetchOne(
                db, sql: "SELECT count(*) FROM mails WHERE recipient_normalized = ?", arguments: [EmailAddress.normalize(to)])
                ?? 0
        }
    }

    /// The newest message's id (0 for an empty mailbox): where a live view starts.
    func newestMailID() async throws -> Int64 {
        try await pool.read { db in try Int64.fetchOne(db, sql: "SELECT max(id) FROM mails") ?? 0 }
    }

    /// Empties the mailbox; returns how many messages there were.
    func deleteAllMails() async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM mails")
            return db.changesCount
        }
    }
}
