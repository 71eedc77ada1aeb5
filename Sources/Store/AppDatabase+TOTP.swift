import AuthCore
import Foundation
import GRDB

/// A holder's authenticator key as stored: sealed bytes only (the sealing key is in the key file).
public struct TOTPCredential: Sendable, Equatable {
    public var secretSealed: [UInt8]?
    public var pendingSecretSealed: [UInt8]?
    public var pendingCreatedAt: Date?
    public var enabled: Bool
    public var lastUsedStep: Int64?
}

/// Authenticator keys and recovery codes of people and superusers alike, each row held by one
/// `CredentialHolder`; the rules around them are `SecondFactorKeys`'.
extension AppDatabase {
    // MARK: Keys

    public func totpCredential(_ holder: CredentialHolder) async throws -> TOTPCredential? {
        // Every sign-in asks whether the authenticator is on: read on the calling thread.
        try hotReads.read { connection in
            try connection.first(
                "SELECT * FROM totp_credentials WHERE \(holder.column) = ?", [.text(holder.key)], Self.credential)
        }
    }

    /// Keeps `sealed` as the holder's key waiting for a first code. Returns false (and keeps
    /// nothing) when TOTP is already on.
    public func setPendingTOTPSecret(_ holder: CredentialHolder, sealed: [UInt8], at now: Date) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO totp_credentials (\(holder.column), pending_secret_sealed, pending_created_at, enabled)
                    VALUES (?, ?, ?, 0)
                    ON CONFLICT (\(holder.column)) DO UPDATE SET
                        pending_secret_sealed = excluded.pending_secret_sealed,
                        pending_created_at = excluded.pending_created_at
                    WHERE enabled = 0
                    """, arguments: [holder.key, Data(sealed), now.storedText])
            return db.changesCount == 1
        }
    }

    /// Turns TOTP on with the pending key `pendingSealed` (exactly the one checked), remembering
    /// `step` as used and storing the recovery codes' hashes, all or nothing. False when the pending
    /// key changed meanwhile or TOTP is already on.
    public func enableTOTP(
        _ holder: CredentialHolder, pendingSealed: [UInt8], step: Int64, recoveryCodeHashes: [String], at now: Date
    ) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE totp_credentials
                    SET secret_sealed = pending_secret_sealed, pending_secret_sealed = NULL, pending_created_at = NULL,
                        enabled = 1, last_used_step = ?, enabled_at = ?
                    WHERE \(holder.column) = ? AND enabled = 0 AND pending_secret_sealed = ?
                    """, arguments: [step, now.storedText, holder.key, Data(pendingSealed)])
            guard db.changesCount == 1 else { return false }
            try Self.replaceRecoveryCodes(db, holder, hashes: recoveryCodeHashes, at: now)
            return true
        }
    }

    /// Turns TOTP off and drops the key and the recovery codes. Returns whether it was on.
    @discardableResult
    public func disableTOTP(_ holder: CredentialHolder) async throws -> Bool {
        try await pool.write { db in
            let wasOn =
                try Bool.fetchOne(
                    db, sql: "SELECT enabled FROM totp_credentials WHERE \(holder.column) = ?", arguments: [holder.key])
                ?? false
            try db.execute(sql: "DELETE FROM totp_credentials WHERE \(holder.column) = ?", arguments: [holder.key])
            try db.execute(sql: "DELETE FROM recovery_codes WHERE \(holder.column) = ?", arguments: [holder.key])
            return wasOn
        }
    }

    /// Records `step` as used when it is newer than the last one: the replay guard for a code
    /// checked outside a people's sign-in challenge. False for a replayed code or TOTP off.
    public func claimTOTPStep(_ holder: CredentialHolder, step: Int64) async throws -> Bool {
        try await pool.write { db in try Self.claimStep(db, holder, step: step) }
    }

    // MARK: Recovery codes

    /// Replaces the holder's recovery codes (only while TOTP is on). False when it is off.
    public func replaceRecoveryCodes(_ holder: CredentialHolder, hashes: [String], at now: Date) async throws -> Bool {
        try await pool.write { db in
            guard
                try Bool.fetchOne(
                    db, sql: "SELECT enabled FROM totp_credentials WHERE \(holder.column) = ?", arguments: [holder.key])
                    == true
            else { return false }
            try Self.replaceRecoveryCodes(db, holder, hashes: hashes, at: now)
            return true
        }
    }

    /// Whether the holder's authenticator app is on, and its unused recovery codes (none counted
    /// while it is off).
    public func totpStatus(_ holder: CredentialHolder) async throws -> TOTPStatus {
        try hotReads.read { connection in
            try connection.first(
                """
                SELECT t.enabled AS totp_enabled,
                  CASE WHEN t.enabled THEN
                    (SELECT COUNT(*) FROM recovery_codes r WHERE r.\(holder.column) = t.\(holder.column) AND r.used_at IS NULL)
                  ELSE 0 END AS recovery_codes_left
                FROM totp_credentials t WHERE t.\(holder.column) = ?
                """, [.text(holder.key)], Self.totpStatus)
        } ?? TOTPStatus(enabled: false, recoveryCodesLeft: 0)
    }

    /// Whether the account's authenticator app is on, and its unused recovery codes (none counted
    /// while it is off), in one statement; nil for an unknown account.
    public func totpStatus(userID: UserID) async throws -> TOTPStatus? {
        try hotReads.read { connection in
            try connection.first(
                "SELECT \(Self.totpStatusColumns) FROM users u \(Self.totpStatusJoin) WHERE u.id = ?",
                [.text(userID.rawValue)], Self.totpStatus)
        }
    }

    /// The authenticator-app status of the account behind a live session, read in the statement that
    /// checks the session (the embedded backend's `totpStatus`, which account pages and Descope's
    /// `me` ask for on every call).
    public func activeSessionTOTPStatus(tokenHash: String, now: Date) async throws -> SessionOwned<TOTPStatus>? {
        try hotReads.read { connection in
            try connection.first(
                Self.activeSessionAccount(adding: Self.totpStatusColumns, joining: Self.totpStatusJoin),
                Self.activeSessionArguments(tokenHash, now, nil)
            ) { row in try SessionOwned(row, try Self.totpStatus(row)) }
        }
    }

    /// `totpStatus`'s columns over the account `u` and `totpStatusJoin`'s `t`.
    private static let totpStatusColumns = """
        COALESCE(t.enabled, 0) AS totp_enabled,
        CASE WHEN t.enabled THEN
          (SELECT COUNT(*) FROM recovery_codes r WHERE r.user_id = u.id AND r.used_at IS NULL)
        ELSE 0 END AS recovery_codes_left
        """
    private static let totpStatusJoin = "LEFT JOIN totp_credentials t ON t.user_id = u.id"

    private static func totpStatus(_ row: some ColumnValues) throws -> TOTPStatus {
        TOTPStatus(enabled: try row.bool("totp_enabled"), recoveryCodesLeft: Int(try row.int64("recovery_codes_left")))
    }

    // MARK: Rows

    static func claimStep(_ db: Database, _ holder: CredentialHolder, step: Int64) throws -> Bool {
        try db.execute(
            sql: """
                UPDATE totp_credentials SET last_used_step = ?
                WHERE \(holder.column) = ? AND enabled = 1 AND (last_used_step IS NULL OR last_used_step < ?)
                """, arguments: [step, holder.key, step])
        return db.changesCount == 1
    }

    static func spendRecoveryCode(_ db: Database, _ holder: CredentialHolder, hash: String, at now: Date) throws -> Bool {
        try db.execute(
            sql: """
                UPDATE recovery_codes SET used_at = ?
                WHERE \(holder.column) = ? AND code_hash = ? AND used_at IS NULL
                  AND EXISTS (SELECT 1 FROM totp_credentials WHERE \(holder.column) = ? AND enabled = 1)
                """, arguments: [now.storedText, holder.key, hash, holder.key])
        return db.changesCount == 1
    }

    private static func replaceRecoveryCodes(_ db: Database, _ holder: CredentialHolder, hashes: [String], at now: Date) throws {
        try db.execute(sql: "DELETE FROM recovery_codes WHERE \(holder.column) = ?", arguments: [holder.key])
        for hash in hashes {
            try db.execute(
                sql: "INSERT INTO recovery_codes (\(holder.column), code_hash, created_at) VALUES (?, ?, ?)",
                arguments: [holder.key, hash, now.storedText])
        }
    }

    private static func credential(_ row: some ColumnValues) throws -> TOTPCredential {
        TOTPCredential(
            secretSealed: try row.optionalData("secret_sealed").map(Array.init),
            pendingSecretSealed: try row.optionalData("pending_secret_sealed").map(Array.init),
            pendingCreatedAt: try row.optionalDate("pending_created_at"), enabled: try row.bool("enabled"),
            lastUsedStep: try row.optionalInt64("last_used_step"))
    }
}
