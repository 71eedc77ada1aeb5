import AuthCore
import Foundation

/// The `Mailer` that "sends" by saving into the dev mailbox table, stamped by the given clock.
public struct MailboxMailer: Mailer {
    private let database: AppDatabase
    private let clock: @Sendable () -> Date

    public init(database: AppDatabase, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.clock = clock
    }

    public func send(_ mail: OutgoingMail) async throws {
        _ = try await database.saveMail(mail, at: clock())
    }
}
