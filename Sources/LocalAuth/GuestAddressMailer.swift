import Logging
import ServerSeam

/// A mailer that mails nothing to a guest account's placeholder address (`GuestAddressMailer.domain`,
/// which `LocalAccounts.signUpGuest` gives every guest) and everything else through the one it wraps:
/// a guest has no address, whoever asks for a code, link or reset for it.
struct GuestAddressMailer: Mailer {
    /// The placeholder addresses' domain, the Rownd plugin's (`guest_<uuid>@anonymous.local`).
    static let domain = "anonymous.local"

    let wrapped: any Mailer
    let logger: Logger

    /// Whether `email` is a guest's placeholder.
    static func isPlaceholder(_ email: String) -> Bool { email.lowercased().hasSuffix("@" + domain) }

    func send(_ mail: OutgoingMail) async throws {
        guard !Self.isPlaceholder(mail.to) else {
            logger.info("not mailed: a guest account's placeholder address", metadata: ["subject": "\(mail.subject)"])
            return
        }
        try await wrapped.send(mail)
    }
}
