import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Gatehouse's SQLite file: one WAL-mode `DatabasePool` plus the ordered schema migrations.
///
/// Dates are stored as GRDB's default UTC text `yyyy-MM-dd HH:mm:ss.SSS` (millisecond precision)
/// in every table and every query argument, so they compare correctly as text and read well in
/// the `sqlite3` shell. Queries live in `AppDatabase+<Concern>.swift` and are all `async`.
public struct AppDatabase: Sendable {
    /// The connection pool: one writer, concurrent readers (WAL).
    let pool: DatabasePool
    /// Read-only connections for the indexed reads every request makes, on the calling thread
    /// (`HotReads`). Kept apart from `pool`: a task that awaits with one of `pool`'s readers held
    /// needs a thread of Swift's small pool to give it back, and blocking those threads on `pool`
    /// could wait for it forever.
    let hotReads: HotReads
    /// Each moved account's clock (`account_clocks`), kept in memory for every holder of this value.
    public let accountClockOffsets: AccountClockOffsets

    /// Opens (creating if needed) the file at `path`, configures every connection and migrates.
    /// The file, its `-wal` and its `-shm` are readable by their owner only (SQLite gives the
    /// companions the main file's mode): they hold password hashes, sessions and mail.
    public init(path: String) throws {
        try Self.restrictPermissions(of: path)
        pool = try DatabasePool(path: path, configuration: Self.configuration())
        try Self.migrator.migrate(pool)
        hotReads = HotReads(path: path)
        accountClockOffsets = AccountClockOffsets(try Self.accountClockOffsets(pool))
        for companion in [path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: companion) {
            _ = chmod(companion, 0o600)
        }
    }

    /// Creates `path` with mode 0600 when missing, and narrows an existing file to 0600.
    private static func restrictPermissions(of path: String) throws {
        let fd = open(path, O_RDWR | O_CREAT, 0o600)
        guard fd >= 0 else { throw StoreError.unusableFile(path: path, errno: errno) }
        defer { close(fd) }
        guard fchmod(fd, 0o600) == 0 else { throw StoreError.unusableFile(path: path, errno: errno) }
    }

    /// Per-connection settings (https://www.sqlite.org/pragma.html): foreign keys on (GRDB's
    /// default, stated here because cascades depend on it), wait up to 5 s for a lock held by
    /// another process, and `synchronous=NORMAL`, which is durable across application crashes in
    /// WAL mode and only risks the last commits on power loss.
    private static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        return configuration
    }
}
