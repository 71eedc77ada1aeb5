import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// Stores a registered credential; nil when its credential id is already stored (whoever's),
    /// which the caller refuses.
    public func addPasskey(_ new: NewPasskey, at now: Date) async throws -> PasskeyRecord? {
        let transports = String(decoding: try JSONEncoder().encode(new.transports), as: UTF8.self)
        return try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO passkeys
                        (credential_id, \(new.owner.column), public_key, sign_count, transports, name, backup_eligible,
                         backed_up, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    Data(new.credentialID), new.owner.key, Data(new.publicKey), Int64(new.signCount), transports,
                    new.name, new.backupEligible, new.backedUp, now.storedText
                ])
            guard db.changesCount == 1 else { return nil }
            return try Row.fetchOne(db, sql: "SELECT * FROM passkeys WHERE id = ?", arguments: [db.lastInsertedRowID])
                .map(PasskeyRecord.init(row:))
        }
    }

    /// The account's passkeys, oldest first.
    public func passkeys(of userID: UserID) async throws -> [PasskeyRecord] {
        try await passkeys(of: .user(userID))
    }

    /// The owner's passkeys, oldest first.
    public func passkeys(of owner: PasskeyOwner) async throws -> [PasskeyRecord] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM passkeys WHERE \(owner.column) = ? ORDER BY id", arguments: [owner.key]
            ).map(PasskeyRecord.init(row:))
        }
    }

    /// The passkey with this credential id, held by a person (or, with `superusers`, by a superuser).
    public func passkey(credentialID: [UInt8], superusers: Bool = false) async throws -> PasskeyRecord? {
        let holder = superusers ? "superuser_id" : "user_id"
        return try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM passkeys WHERE credential_id = ? AND \(holder) IS NOT NULL",
                arguments: [Data(credentialID)]
            ).map(PasskeyRecord.init(row:))
        }
    }

    /// Records a sign-in with `passkey`: its new counter and backup state, when it was used. Only
    /// while the counter is still the one the check read (`expectedSignCount`): of two assertions
    /// raced with one counter value, one wins. False when the row moved or is gone.
    public func recordPasskeyUse(
        id: Int64, expectedSignCount: UInt32, signCount: UInt32, backedUp: Bool, at now: Date
    ) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE passkeys SET sign_count = ?, backed_up = ?, last_used_at = ?
                    WHERE id = ? AND sign_count = ?
                    """, arguments: [Int64(signCount), backedUp, now.storedText, id, Int64(expectedSignCount)])
            return db.changesCount == 1
        }
    }

    /// Renames one of the account's passkeys; false when it has no such passkey.
    public func renamePasskey(id: Int64, of userID: UserID, to name: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE passkeys SET name = ? WHERE id = ? AND user_id = ?", arguments: [name, id, userID.rawValue])
            return db.changesCount == 1
        }
    }

    /// Deletes one of the owner's passkeys; the deleted row, or nil when it has no such passkey.
    public func deletePasskey(id: Int64, of owner: PasskeyOwner) async throws -> PasskeyRecord? {
        try await pool.write { db in
            try Row.fetchOne(
                db, sql: "DELETE FROM passkeys WHERE id = ? AND \(owner.column) = ? RETURNING *", arguments: [id, owner.key]
            ).map(PasskeyRecord.init(row:))
        }
    }

    /// Deletes every passkey of the account (a recovery: the owner's reset, staff signing it out
    /// everywhere); returns how many.
    public func deletePasskeys(of userID: UserID) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM passkeys WHERE user_id = ?", arguments: [userID.rawValue])
            return db.changesCount
        }
    }

    /// Deletes one of the account's own passkeys unless it is the account's last way to sign in
    /// (no password, no linked provider, no other passkey): checked and deleted in one transaction,
    /// so two deletions at once cannot both pass the check.
    public func deleteOwnPasskey(id: Int64, of userID: UserID) async throws -> OwnPasskeyDeletion {
        try await pool.write { db in
            guard let waysIn = try Self.waysIn(of: userID, db) else { return .notFound }
            let owned =
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM passkeys WHERE id = ? AND user_id = ?", arguments: [id, userID.rawValue]) ?? false
            guard owned else { return .notFound }
            guard !waysIn.passkeyIsTheOnlyOne else { return .lastSignInMethod }
            let deleted = try Row.fetchOne(
                db, sql: "DELETE FROM passkeys WHERE id = ? RETURNING *", arguments: [id]
            ).map(PasskeyRecord.init(row:))
            return deleted.map(OwnPasskeyDeletion.deleted) ?? .notFound
        }
    }

    /// Whether the account's passkey is its only way to sign in (`deleteOwnPasskey` refuses to delete
    /// it), for the console, whose staff may delete it all the same. False without passkeys.
    public func passkeyIsOnlyWayIn(of userID: UserID) async throws -> Bool {
        try await pool.read { db in try Self.waysIn(of: userID, db)?.passkeyIsTheOnlyOne ?? false }
    }

    /// An account's ways to sign in, as the lock-out rule counts them.
    private struct WaysIn {
        var password: Bool
        var links: Int64
        var passkeys: Int64

        /// It has one passkey and nothing else: no password, no linked provider.
        var passkeyIsTheOnlyOne: Bool { passkeys == 1 && !password && links == 0 }
    }

    private static func waysIn(of userID: UserID, _ db: Database) throws -> WaysIn? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT users.password_hash IS NOT NULL AS has_password,
                    (SELECT count(*) FROM external_auths WHERE user_id = users.id) AS links,
                    (SELECT count(*) FROM passkeys WHERE user_id = users.id) AS passkeys
                FROM users WHERE id = ?
                """, arguments: [userID.rawValue]
        ).map { row in WaysIn(password: row["has_password"], links: row["links"], passkeys: row["passkeys"]) }
    }

    /// What deleting one's own passkey came to.
    public enum OwnPasskeyDeletion: Sendable, Equatable {
        case deleted(PasskeyRecord)
        case notFound
        /// Refused: it is the account's only way to sign in.
        case lastSignInMethod
    }

    /// Keeps a ceremony's challenge (by its keyed hash) until `expiresAt`; dead ones go on the way.
    public func storePasskeyChallenge(
        hash: String, purpose: PasskeyCeremony, userID: UserID?, expiresAt: Date, now: Date
    ) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM passkey_challenges WHERE expires_at <= ?", arguments: [now.storedText])
            try db.execute(
                sql: "INSERT INTO passkey_challenges (challenge_hash, purpose, user_id, expires_at) VALUES (?, ?, ?, ?)",
                arguments: [hash, purpose.rawValue, userID?.rawValue, expiresAt.storedText])
        }
    }

    /// Spends a live challenge of `purpose`: `.spent(userID)` once (the account it was issued for,
    /// if any), `.unknown` when it never was or was spent already, `.expired` when it is past its
    /// time by `now` (asked with the account it was issued for, whose clock may run ahead).
    public func spendPasskeyChallenge(
        hash: String, purpose: PasskeyCeremony, now: @escaping @Sendable (UserID?) -> Date
    ) async throws -> SpentChallenge {
        try await pool.write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "DELETE FROM passkey_challenges WHERE challenge_hash = ? AND purpose = ? RETURNING *",
                    arguments: [hash, purpose.rawValue])
            else { return .unknown }
            let owner = (row["user_id"] as String?).map(UserID.init(rawValue:))
            guard let expiresAt = row.storedDate("expires_at"), expiresAt > now(owner) else { return .expired }
            return .spent(owner)
        }
    }

    /// What a challenge came to.
    public enum SpentChallenge: Sendable, Equatable {
        case spent(UserID?)
        case expired
        case unknown
    }
}

/// The two WebAuthn ceremonies a challenge is issued for.
public enum PasskeyCeremony: String, Sendable {
    case register, authenticate
}
