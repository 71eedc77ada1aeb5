import Foundation
import Store

/// One message in the dev mailbox, opened (`DevMailbox`): what the mailbox page, its live stream,
/// the console's user page and a test suite's mail helper show of it.
public struct MailMessage: Sendable, Equatable {
    public var id: Int64
    /// The address as given to the mailer.
    public var recipient: String
    public var subject: String
    public var text: String
    public var html: String
    /// The code or link the mail carries, when it carries one.
    public var code: String?
    public var link: String?
    /// What the code or link is for (`MailKind`'s raw value); nil for none or a mail caught by SMTP.
    var kind: String?
    public var createdAt: Date

    init(_ row: MailRecord) {
        id = row.id
        recipient = row.recipient
        subject = row.subject
        text = row.text
        html = row.html
        code = row.code
        link = row.link
        kind = row.kind
        createdAt = row.createdAt
    }
}
