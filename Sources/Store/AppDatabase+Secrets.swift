import Foundation
import GRDB
import Secrets

extension AppDatabase {
    /// The 32-byte server key called `name` (for `KeyedHash`, CSRF signing, …), created from the
    /// CSPRNG on first use. `INSERT OR IGNORE` then `SELECT` in one transaction means every process
    /// and every caller sees the same key, even when several start at once.
    public func secretKey(named name: String) throws -> [UInt8] {
        let length = KeyedHash.keyLength
        let value = try pool.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)",
                arguments: [name, Data(SecureRandom.bytes(length))])
            return try Data.fetchOne(db, sql: "SELECT value FROM secrets WHERE name = ?", arguments: [name])
        }
        guard let value, value.count == length else { throw StoreError.invalidSecret(name: name) }
        return Array(value)
    }

    /// A key an older Gatehouse kept in `secrets` (now kept in the key file), or nil.
    public func legacySecret(named name: String) throws -> [UInt8]? {
        try pool.read { db in
            try Data.fetchOne(db, sql: "SELECT value FROM secrets WHERE name = ?", arguments: [name]).map(Array.init)
        }
    }

    /// Forgets a key once it lives elsewhere, so the database file alone no longer holds it.
    public func deleteSecret(named name: String) throws {
        try pool.write { db in try db.execute(sql: "DELETE FROM secrets WHERE name = ?", arguments: [name]) }
        try eraseFreedPages()
    }

    /// A deleted value may linger in free pages and the WAL: checkpoint and vacuum it away.
    func eraseFreedPages() throws {
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            try db.execute(sql: "VACUUM")
        }
    }
}
