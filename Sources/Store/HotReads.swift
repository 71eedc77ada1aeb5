import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// Read-only SQLite connections for the short indexed reads every request makes (the session
/// behind a cookie or token, the sign-in page's providers), run on the calling thread.
///
/// GRDB's pool is built for reads that may wait: each read checks a connection out through a
/// semaphore, hops onto the connection's serial queue, opens and commits a transaction and formats
/// every date argument with a `DateFormatter` — together several times the cost of the one indexed
/// lookup inside. Here a read takes an idle connection from a list, runs statements it prepared
/// once, and gives the connection back. A single statement is its own read transaction in WAL
/// mode, so each one sees every write committed before it began, as GRDB's readers do.
///
/// Holders never await, so the number of connections in use is bounded by the number of threads;
/// at most `idleLimit` are kept between reads.
final class HotReads: Sendable {
    private let path: String
    private let idle = Mutex<[HotReadConnection]>([])
    private let idleLimit = 8

    init(path: String) {
        self.path = path
    }

    /// Runs `body` with a connection no other thread holds.
    func read<T>(_ body: (HotReadConnection) throws -> T) throws -> T {
        let connection = try idle.withLock { $0.popLast() } ?? HotReadConnection(path: path)
        defer {
            idle.withLock { connections in
                if connections.count < idleLimit { connections.append(connection) }
            }
        }
        return try body(connection)
    }

    /// Frees the page caches of the idle connections (`sqlite3_db_release_memory`); their prepared
    /// statements stay. A connection in use keeps its cache.
    func releaseMemory() {
        idle.withLock { connections in
            for connection in connections { connection.releaseMemory() }
        }
    }
}

/// One read-only connection and the statements it has prepared, by SQL text. Used by one thread at
/// a time: `HotReads` hands it out to a single holder.
final class HotReadConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    private var prepared: [String: HotStatement] = [:]

    init(path: String) throws {
        var handle: OpaquePointer?
        let opened = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard opened == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: opened), message: message)
        }
        self.handle = handle
        // As GRDB's connections do (`AppDatabase.configuration`): wait for a lock another process holds.
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit {
        for statement in prepared.values { sqlite3_finalize(statement.handle) }
        sqlite3_close_v2(handle)
    }

    /// Frees what SQLite holds for this connection that it can read again (its page cache).
    func releaseMemory() {
        _ = sqlite3_db_release_memory(handle)
    }

    /// The first row `sql` yields for `arguments`, decoded by `decode`; nil when there is none.
    func first<T>(_ sql: String, _ arguments: [HotArgument], _ decode: (HotRow) throws -> T) throws -> T? {
        try rows(sql, arguments, limit: 1, decode).first
    }

    /// Every row (up to `limit`) `sql` yields for `arguments`, decoded by `decode`.
    func rows<T>(_ sql: String, _ arguments: [HotArgument], limit: Int = .max, _ decode: (HotRow) throws -> T)
        throws -> [T]
    {
        let statement = try statement(for: sql)
        defer {
            sqlite3_reset(statement.handle)
            sqlite3_clear_bindings(statement.handle)
        }
        for (offset, argument) in arguments.enumerated() {
            try check(argument.bind(to: statement.handle, at: Int32(offset + 1)))
        }
        var decoded: [T] = []
        while decoded.count < limit {
            let stepped = sqlite3_step(statement.handle)
            if stepped == SQLITE_DONE { break }
            try check(stepped, expecting: SQLITE_ROW)
            decoded.append(try decode(HotRow(statement: statement)))
        }
        return decoded
    }

    private func statement(for sql: String) throws -> HotStatement {
        if let statement = prepared[sql] { return statement }
        var handle: OpaquePointer?
        try check(sqlite3_prepare_v3(self.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil))
        guard let handle else { throw DatabaseError(message: "no statement in \(sql)") }
        let statement = HotStatement(handle: handle)
        prepared[sql] = statement
        return statement
    }

    private func check(_ code: Int32, expecting expected: Int32 = SQLITE_OK) throws {
        guard code != expected else { return }
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(handle)))
    }
}

/// A prepared statement and where each result column is, by name, read once.
final class HotStatement {
    let handle: OpaquePointer
    /// Every position of each name, in order: a join of two tables (`SELECT a.*, b.*`) repeats the
    /// names they share.
    let columns: [String: [Int32]]

    init(handle: OpaquePointer) {
        self.handle = handle
        var columns: [String: [Int32]] = [:]
        for index in 0..<sqlite3_column_count(handle) {
            columns[String(cString: sqlite3_column_name(handle, index)), default: []].append(index)
        }
        self.columns = columns
    }
}

/// A value bound to a hot statement's parameter.
enum HotArgument {
    case text(String)
    case integer(Int64)
    /// A date, bound as its stored text (`Date.storedText`, the text every stored date is), so a
    /// statement compares it with a stored date as it is: no date function runs per request.
    case date(Date)

    fileprivate func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch databaseValue.storage {
        case .string(let text): sqlite3_bind_text(statement, index, text, -1, SQLITE_TRANSIENT)
        case .int64(let value): sqlite3_bind_int64(statement, index, value)
        default: sqlite3_bind_null(statement, index)
        }
    }

    /// The same value for a statement run through GRDB.
    var databaseValue: DatabaseValue {
        switch self {
        case .text(let text): text.databaseValue
        case .integer(let value): value.databaseValue
        case .date(let date): date.storedText
        }
    }
}

/// SQLite's "copy the bytes now" destructor, which the C macro spells as a cast of -1.
private let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// The current row of a hot statement, read by column name. In a join of two tables
/// (`SELECT a.*, b.*`), `joined` reads the second table's columns where a name is in both.
struct HotRow: ColumnValues {
    fileprivate let statement: HotStatement
    private var second = false

    fileprivate init(statement: HotStatement) {
        self.statement = statement
    }

    /// The same row, read as the second table of `SELECT a.*, b.*`.
    var joined: HotRow {
        var row = self
        row.second = true
        return row
    }

    private func index(_ column: String) throws -> Int32 {
        guard let indices = statement.columns[column], let index = second ? indices.last : indices.first else {
            throw DatabaseError(message: "no column \(column) in the result")
        }
        return index
    }

    private func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(statement.handle, index) == SQLITE_NULL
    }

    func optionalString(_ column: String) throws -> String? {
        let index = try index(column)
        guard !isNull(index), let text = sqlite3_column_text(statement.handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(statement.handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func optionalInt64(_ column: String) throws -> Int64? {
        let index = try index(column)
        return isNull(index) ? nil : sqlite3_column_int64(statement.handle, index)
    }

    func optionalData(_ column: String) throws -> Data? {
        let index = try index(column)
        guard !isNull(index) else { return nil }
        let count = Int(sqlite3_column_bytes(statement.handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(statement.handle, index) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    func optionalDate(_ column: String) throws -> Date? {
        let index = try index(column)
        guard !isNull(index) else { return nil }
        guard sqlite3_column_type(statement.handle, index) == SQLITE_TEXT,
            let text = sqlite3_column_text(statement.handle, index)
        else {
            throw DatabaseError(message: "\(column) is not a stored date")
        }
        let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement.handle, index)))
        // Anything but the stored format (a hand-edited row, say) goes to GRDB's general parser.
        guard let date = StoredDate.parse(bytes) ?? Date.fromDatabaseValue(String(decoding: bytes, as: UTF8.self).databaseValue)
        else {
            throw DatabaseError(message: "\(column) is not a stored date")
        }
        return date
    }
}
