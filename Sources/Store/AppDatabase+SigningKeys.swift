import Foundation
import GRDB
import Secrets

extension AppDatabase {
    /// The 32-byte private signing key called `name` (Descope's, SuperTokens', the test provider's),
    /// kept sealed under `box` — a key from the key file — as `sealed:<name>`, so a copy of the
    /// database alone holds no key that signs. Made on first use, and made anew when the sealed one
    /// does not open under `box` (another key file: what the old key signed cannot be trusted here).
    /// A key an older Gatehouse kept in plain text under `name` is sealed in place (the same key, so
    /// what it signed still verifies) and its plain copy erased, free pages and WAL included. One
    /// write transaction: every process sees the same key, even when several start at once.
    public func signingKey(named name: String, sealedWith box: SecretBox) throws -> [UInt8] {
        let sealedName = "sealed:" + name
        let (key, erasedPlain) = try pool.write { db -> ([UInt8], Bool) in
            let plain = try Data.fetchOne(db, sql: "SELECT value FROM secrets WHERE name = ?", arguments: [name])
            try db.execute(sql: "DELETE FROM secrets WHERE name = ?", arguments: [name])
            if let sealed = try Data.fetchOne(db, sql: "SELECT value FROM secrets WHERE name = ?", arguments: [sealedName]),
                let key = Self.opened(Array(sealed), with: box)
            {
                return (key, plain != nil)
            }
            let key =
                plain.map(Array.init).flatMap { $0.count == KeyedHash.keyLength ? $0 : nil }
                ?? SecureRandom.bytes(KeyedHash.keyLength)
            try db.execute(
                sql: "INSERT OR REPLACE INTO secrets (name, value) VALUES (?, ?)",
                arguments: [sealedName, Data(box.seal(Base64URL.encode(key)))])
            return (key, plain != nil)
        }
        if erasedPlain { try eraseFreedPages() }
        return key
    }

    /// The key sealed in `sealed`, or nil when it does not open under `box` or is not a key.
    private static func opened(_ sealed: [UInt8], with box: SecretBox) -> [UInt8]? {
        guard let text = try? box.open(sealed), let key = Base64URL.decode(text), key.count == KeyedHash.keyLength
        else { return nil }
        return key
    }
}
