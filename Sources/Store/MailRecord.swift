import Foundation

/// One message in the dev mailbox, opened (`MailboxMailer`): in `mails` all but the recipient and
/// the time are sealed.
public struct MailRecord: Sendable, Equatable {
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
    /// What the code or link is for (`MailKind`'s raw value); nil for none or a mail caught by SMTP.
    public var kind: String?
    public var createdAt: Date
}
