import AuthCore
import Foundation
import HTTPServer
import ServerSeam
import Store

/// The latest code and link of each kind an address was mailed (`GET /_/api/test/codes`): read
/// from the dev mailbox, where the mailer kept each mail's code, link and kind as it wrote them —
/// the very secrets the mail carries, never parsed back out of its text. Each read is audited.
public struct TestCodes: Sendable {
    let env: Accounts
    let mailbox: DevMailbox
    let caller: TestControlCaller

    public init(env: Accounts, mailbox: DevMailbox, caller: TestControlCaller) {
        (self.env, self.mailbox, self.caller) = (env, mailbox, caller)
    }

    /// One kind's latest secret.
    public struct Latest: Sendable {
        public let kind: MailKind
        public let code: String?
        public let link: String?
        /// The mail that carried it (the Mailpit-compatible API's message id).
        public let mailID: String
        public let sentAt: Date
    }

    /// How many of an address's newest mails are looked through.
    static let window = 200

    /// The newest mail of each kind to `email` that carried a code or link, newest first.
    public func latest(email: String, request: Request) async throws -> [Latest] {
        guard EmailAddress.isPlausible(email) else {
            throw AuthError.validation([FieldError(field: "email", message: "Give the address the mails went to.")])
        }
        await caller.record(.testCodesRead, in: env, request: request, data: ["email": .string(email)])
        var seen: Set<MailKind> = []
        var latest: [Latest] = []
        for mail in try await mailbox.mails(to: email, limit: Self.window) {
            guard let kind = mail.kind.flatMap(MailKind.init(rawValue:)), !seen.contains(kind),
                mail.code != nil || mail.link != nil
            else { continue }
            seen.insert(kind)
            latest.append(
                Latest(kind: kind, code: mail.code, link: mail.link, mailID: String(mail.id), sentAt: mail.createdAt))
        }
        return latest
    }
}
