import Foundation
import GRDB

/// A row of `mails`: one message in the dev mailbox.
public struct MailRecord: Codable, Sendable, Equatable, FetchableRecord, TableRecord {
    public static let databaseTableName = "mails"

    public var id: Int64
    /// The address as given to the mailer.
    public var recipient: String
    /// `EmailAddress.normalize(recipient)`, what `?to=` matches.
    public var recipientNormalized: String
    public var subject: String
    public var text: String
    public var html: String
    public var code: String?
    public var link: String?
    public var createdAt: Date

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id, recipient, subject, text, html, code, link
        case recipientNormalized = "recipient_normalized"
        case createdAt = "created_at"
    }
}
