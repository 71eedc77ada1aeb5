import Foundation

/// A message Gatehouse "sends"; the dev mailbox keeps every one, with the code and link pulled out.
public struct OutgoingMail: Sendable, Equatable {
    public var to: String
    public var subject: String
    public var text: String
    public var html: String
    public var code: String?
    public var link: String?
    /// What the code or link is for; nil for a mail that carries none.
    public var kind: MailKind?

    public init(
        to: String, subject: String, text: String, html: String, code: String? = nil, link: String? = nil,
        kind: MailKind? = nil
    ) {
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.code = code
        self.link = link
        self.kind = kind
    }
}

/// Where outgoing mail goes: the dev mailbox in the SQLite file.
public protocol Mailer: Sendable {
    func send(_ mail: OutgoingMail) async throws
}
