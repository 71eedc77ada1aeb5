import Logging
import ServerSeam

/// A mailer that mails nothing to reserved test addresses (`TestAddresses`) and everything else
/// through the mailer it wraps.
struct TestAddressMailer: Mailer {
    let wrapped: any Mailer
    let addresses: TestAddresses
    let logger: Logger

    func send(_ mail: OutgoingMail) async throws {
        guard !addresses.reserves(mail.to) else {
            logger.info("not mailed: a reserved test address", metadata: ["subject": "\(mail.subject)"])
            return
        }
        try await wrapped.send(mail)
    }
}
