import Foundation
import Logging
import MailCatcher
import Secrets
import Store
import TestScope

/// A started `MailCatcher` on `host` (127.0.0.1 unless told), port 0, that stores into a real SQLite
/// file in a temp dir.
final class CatcherHarness: Stoppable {
    let directory: URL
    let database: AppDatabase
    /// The dev mailbox the catcher stores into (it opens the sealed mails).
    let mailbox: MailboxMailer
    let catcher: MailCatcher
    var port: Int { catcher.port }

    init(host: String = "127.0.0.1", limits: SMTPLimits = SMTPLimits(), idleTimeout: Duration = .seconds(30)) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = try AppDatabase(path: directory.appendingPathComponent("gatehouse.sqlite").path)
        var logger = Logger(label: "mail-catcher-test")
        logger.logLevel = .warning
        mailbox = try MailboxMailer(database: database, keyedHash: KeyedHash(key: database.secretKey(named: "keyed-hash")))
        catcher = MailCatcher(
            host: host, port: 0, mailer: mailbox, logger: logger,
            limits: limits, idleTimeout: idleTimeout)
        try await catcher.start()
        try stopsWithTest()
    }

    func stop() async {
        await catcher.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}
