import Accounts
import ArgumentParser
import AuthCore
import Foundation
import GatehouseWeb
import LocalAuth
import Logging
import Secrets
import ServerSeam
import Store

/// What `gatehouse users …` and `gatehouse reset` share: the SQLite file and the embedded backend
/// over it, used through the same test-data operations as the console.
struct TestDataOptions: ParsableArguments {
    @Option(help: "SQLite file holding users, sessions, mail and audit; created if missing. (GATEHOUSE_DB)")
    var db: String = Environment.value("DB") ?? "gatehouse.sqlite"

    @Option(help: "File with the server's keys. Defaults to DB.key. (GATEHOUSE_SECRET_KEY_FILE)")
    var secretKeyFile: String?

    /// The console's test-data operations over the embedded accounts in `db` (a server may be
    /// running on the same file: SQLite's WAL lets both work).
    func testData() throws -> CommandLineTestData {
        let (database, keyedHash, logger) = try opened()
        let clock: @Sendable () -> Date = { Date() }
        let accounts = LocalAccounts(
            configuration: .init(verification: .none, publicBaseURL: { "" }),
            database: database, hasher: try PasswordHasher(),
            mailer: try MailboxMailer(database: database, keyedHash: keyedHash, clock: clock),
            keyedHash: keyedHash, clock: clock, logger: logger)
        return CommandLineTestData(backend: LocalBackend(accounts: accounts), database: database, logger: logger, clock: clock)
    }

    /// The file, the server's keyed hash (the key file made if missing) and a quiet logger.
    func opened() throws -> (database: AppDatabase, keyedHash: KeyedHash, logger: Logger) {
        var logger = Logger(label: "gatehouse.cli")
        logger.logLevel = .warning
        let database = try AppDatabase(path: db)
        let keyPath = ServerKeys.filePath(given: secretKeyFile, db: db)
        let keys = try ServerKeys.loadOrCreate(path: keyPath) { try database.legacySecret(named: Serve.keyedHashSecret) }
        return (database, try KeyedHash(key: keys.keyedHash), logger)
    }
}

/// A one-line progress bar on a terminal (redrawn in place on standard error), plain lines when
/// standard error is not a terminal (a log or CI): one every `plainEvery` items and at the end.
final class ProgressReport: @unchecked Sendable {
    private let label: String
    private let total: Int
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let lock = NSLock()
    private var lastPlain = 0
    private let plainEvery: Int

    init(_ label: String, total: Int) {
        self.label = label
        self.total = max(total, 1)
        plainEvery = max(total / 10, 1)
    }

    func update(_ done: Int, total newTotal: Int? = nil) {
        lock.lock()
        defer { lock.unlock() }
        let total = max(newTotal ?? self.total, 1)
        if isTerminal {
            let width = 30
            let filled = min(width, done * width / total)
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let percent = min(100, done * 100 / total)
            write("\r\(label) \(bar) \(percent)% \(CountText.grouped(done))/\(CountText.grouped(total))")
        } else if done - lastPlain >= plainEvery || done == total {
            lastPlain = done
            write("\(label): \(CountText.grouped(done))/\(CountText.grouped(total))\n")
        }
    }

    /// Ends the bar's line on a terminal.
    func finish() {
        if isTerminal { write("\n") }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
