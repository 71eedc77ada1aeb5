import AuthCore
import Foundation
import GRDB

/// An account's authenticator key as stored: sealed bytes only (the sealing key is in the key file).
public struct TOTPCredential: Sendable, Equatable {
    public var userID: UserID
    public var secretSealed: [UInt8]?
    public var pendingSecretSealed: [UInt8]?
    public var pendingCreatedAt: Date?
    public var enabled: Bool
    public var lastUsedStep: Int64?
}

/// A pending second step of a sign-in.
public struct MFAChallengeRecord: Sendable, Equatable {
    public var idHash: String
    public var userID: UserID
    /// How the first step was passed ("password", "email_code", "provider", …), for the audit.
    public var firstMethod: String
    public var attempts: Int
    public var createdAt: Date
    public var expiresAt: Date
    public var consumedAt: Date?

    public init(
        idHash: String, userID: UserID, firstMethod: String, attempts: Int = 0, createdAt: Date, expiresAt: Date,
        consumedAt: Date? = nil
    ) {
        self.idHash = idHash
        self.userID = userID
        self.firstMethod = firstMethod
        self.attempts = attempts
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.consumedAt = consumedAt
    }
}

/// What claiming one try of a challenge gave.
public enum MFAAttemptClaim: Sendable, Equatable {
    /// The try may compare a code.
    case claimed(MFAChallengeRecord)
    /// Unknown, expired, spent or out of tries.
    case dead
    /// The account had too many wrong second steps lately: refused like a wrong code.
    case accountThrottled
}

/// What completing a claimed challenge gave.
public enum MFACompletion: Sendable, Equatable {
    case completed
    /// The code's step was not newer than the last one used, or the recovery code was spent.
    case factorRefused
    /// Another completion won, or the challenge died meanwhile.
    case challengeDead
}

/// The second factor a completion spends, in the same transaction as the challenge.
public enum SpentFactor: Sendable, Equatable {
    case totpStep(Int64)
    case recoveryCode(hash: String)
}

extension AppDatabase {
    // MARK: Keys

    public func totpCredential(userID: UserID) async throws -> TOTPCredential? {
        // Every sign-in asks whether the authenticator is on: read on the calling thread.
        try hotReads.read { connection in
            try connection.first(
                "SELECT * FROM totp_credentials WHERE user_id = ?", [.text(userID.rawValue)], Self.credential)
        }
    }

    /// Keeps `sealed` as the account's key waiting for a first code. Returns false (and keeps
    /// nothing) when TOTP is already on.
    public func setPendingTOTPSecret(userID: UserID, sealed: [UInt8], at now: Date) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO totp_credentials (user_id, pending_secret_sealed, pending_created_at, enabled)
                    VALUES (?, ?, ?, 0)
                    ON CONFLICT (user_id) DO UPDATE SET
                        pending_secret_sealed = excluded.pending_secret_sealed,
                        pending_created_at = excluded.pending_created_at
                    WHERE enabled = 0
                    """, arguments: [userID.rawValue, Data(sealed), now.storedText])
            return db.changesCount == 1
        }
    }

    /// Turns TOTP on with the pending key `pendingSealed` (exactly the one checked), remembering
    /// `step` as used and storing the recovery codes' hashes, all or nothing. False when the pending
    /// key changed meanwhile or TOTP is already on.
    public func enableTOTP(
        userID: UserID, pendingSealed: [UInt8], step: Int64, recoveryCodeHashes: [String], at now: Date
    ) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE totp_credentials
                    SET secret_sealed = pending_secret_sealed, pending_secret_sealed = NULL, pending_created_at = NULL,
                        enabled = 1, last_used_step = ?, enabled_at = ?
                    WHERE user_id = ? AND enabled = 0 AND pending_secret_sealed = ?
                    """, arguments: [step, now.storedText, userID.rawValue, Data(pendingSealed)])
            guard db.changesCount == 1 else { return false }
            try Self.replaceRecoveryCodes(db, userID: userID, hashes: recoveryCodeHashes, at: now)
            return true
        }
    }

    /// Turns TOTP off and drops the key and the recovery codes. Returns whether it was on.
    @discardableResult
    public func disableTOTP(userID: UserID) async throws -> Bool {
        try await pool.write { db in
            let wasOn =
                try Bool.fetchOne(
                    db, sql: "SELECT enabled FROM totp_credentials WHERE user_id = ?", arguments: [userID.rawValue])
                ?? false
            try db.execute(sql: "DELETE FROM totp_credentials WHERE user_id = ?", arguments: [userID.rawValue])
            try db.execute(sql: "DELETE FROM recovery_codes WHERE user_id = ?", arguments: [userID.rawValue])
            return wasOn
        }
    }

    /// Records `step` as used when it is newer than the last one: the replay guard for a code
    /// checked outside a sign-in (re-authentication). False for a replayed code or TOTP off.
    public func claimTOTPStep(userID: UserID, step: Int64) async throws -> Bool {
        try await pool.write { db in try Self.claimStep(db, userID: userID, step: step) }
    }

    // MARK: Recovery codes

    /// Replaces the account's recovery codes (only while TOTP is on). False when it is off.
    public func replaceRecoveryCodes(userID: UserID, hashes: [String], at now: Date) async throws -> Bool {
        try await pool.write { db in
            guard
                try Bool.fetchOne(
                    db, sql: "SELECT enabled FROM totp_credentials WHERE user_id = ?", arguments: [userID.rawValue])
                    == true
            else { return false }
            try Self.replaceRecoveryCodes(db, userID: userID, hashes: hashes, at: now)
            return true
        }
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

    // MARK: Challenges

    public func insertMFAChallenge(_ challenge: MFAChallengeRecord) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO mfa_challenges (id_hash, user_id, first_method, attempts, created_at, expires_at)
                    VALUES (?, ?, ?, 0, ?, ?)
                    """,
                arguments: [
                    challenge.idHash, challenge.userID.rawValue, challenge.firstMethod, challenge.createdAt.storedText,
                    challenge.expiresAt.storedText
                ])
        }
    }

    /// Claims one of a live challenge's `maxAttempts` tries before any code is compared, in one
    /// write: parallel tries can never compare more than `maxAttempts` codes. The account's wrong
    /// tries over every challenge created since `failuresSince` must stay under `maxAccountFailures`
    /// (a try in flight counts as wrong until it completes), so new challenges do not buy new guesses.
    public func claimMFAAttempt(
        idHash: String, maxAttempts: Int, maxAccountFailures: Int, failuresSince: Date, now: Date
    ) async throws -> MFAAttemptClaim {
        try await pool.write { db in
            guard
                let challenge = try Row.fetchOne(
                    db, sql: "SELECT * FROM mfa_challenges WHERE id_hash = ?", arguments: [idHash]
                ).map(Self.challenge),
                challenge.consumedAt == nil, challenge.attempts < maxAttempts, challenge.expiresAt > now
            else { return .dead }
            let failures =
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COALESCE(SUM(attempts - (consumed_at IS NOT NULL)), 0) FROM mfa_challenges
                        WHERE user_id = ? AND created_at > ?
                        """, arguments: [challenge.userID.rawValue, failuresSince.storedText]) ?? 0
            guard failures < maxAccountFailures else { return .accountThrottled }
            try db.execute(sql: "UPDATE mfa_challenges SET attempts = attempts + 1 WHERE id_hash = ?", arguments: [idHash])
            var claimed = challenge
            claimed.attempts += 1
            return .claimed(claimed)
        }
    }

    /// Spends the factor and the challenge in one transaction: of parallel completions exactly one
    /// wins, and a losing one spends no recovery code.
    public func completeMFAChallenge(idHash: String, spending factor: SpentFactor, now: Date) async throws -> MFACompletion {
        try await pool.write { db in
            guard
                let challenge = try Row.fetchOne(
                    db, sql: "SELECT * FROM mfa_challenges WHERE id_hash = ?", arguments: [idHash]
                ).map(Self.challenge),
                challenge.consumedAt == nil, challenge.expiresAt > now
            else { return .challengeDead }
            switch factor {
            case .totpStep(let step):
                guard try Self.claimStep(db, userID: challenge.userID, step: step) else { return .factorRefused }
            case .recoveryCode(let hash):
                try db.execute(
                    sql: """
                        UPDATE recovery_codes SET used_at = ?
                        WHERE user_id = ? AND code_hash = ? AND used_at IS NULL
                          AND EXISTS (SELECT 1 FROM totp_credentials WHERE user_id = ? AND enabled = 1)
                        """, arguments: [now.storedText, challenge.userID.rawValue, hash, challenge.userID.rawValue])
                guard db.changesCount == 1 else { return .factorRefused }
            }
            try db.execute(
                sql: "UPDATE mfa_challenges SET consumed_at = ? WHERE id_hash = ? AND consumed_at IS NULL",
                arguments: [now.storedText, idHash])
            return .completed
        }
    }

    /// Forgets challenges that ended long ago (they only count toward the account's recent failures).
    public func deleteMFAChallenges(expiredBefore cutoff: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM mfa_challenges WHERE expires_at < ?", arguments: [cutoff.storedText])
        }
    }

    // MARK: Superusers

    /// A superuser's sealed authenticator key, or nil when they have none.
    public func superuserTOTPSecret(id: String) async throws -> [UInt8]? {
        try await pool.read { db in
            try Data.fetchOne(db, sql: "SELECT totp_secret_sealed FROM superusers WHERE id = ?", arguments: [id]).map(Array.init)
        }
    }

    /// A superuser's key shown for enrolment and when it was made (nil created: from before that
    /// was kept, so expired).
    public func superuserPendingTOTPSecret(id: String) async throws -> (sealed: [UInt8], createdAt: Date?)? {
        try await pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT totp_pending_sealed, totp_pending_created_at FROM superusers WHERE id = ?",
                    arguments: [id]),
                let sealed = row["totp_pending_sealed"] as Data?
            else { return nil }
            return (Array(sealed), try row.optionalDate("totp_pending_created_at"))
        }
    }

    /// Keeps a key shown to a superuser, made at `now`, until a first code confirms it.
    public func setSuperuserPendingTOTPSecret(id: String, sealed: [UInt8], at now: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE superusers SET totp_pending_sealed = ?, totp_pending_created_at = ? WHERE id = ?",
                arguments: [Data(sealed), now.storedText, id])
        }
    }

    /// Turns a superuser's TOTP on with exactly the pending key that was checked, storing the
    /// recovery codes' hashes, all or nothing.
    public func enableSuperuserTOTP(
        id: String, pendingSealed: [UInt8], step: Int64, recoveryCodeHashes: [String], at now: Date
    ) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE superusers SET totp_secret_sealed = totp_pending_sealed, totp_pending_sealed = NULL,
                        totp_pending_created_at = NULL, totp_last_used_step = ?, updated_at = ?
                    WHERE id = ? AND totp_secret_sealed IS NULL AND totp_pending_sealed = ?
                    """, arguments: [step, now.storedText, id, Data(pendingSealed)])
            guard db.changesCount == 1 else { return false }
            try Self.replaceSuperuserRecoveryCodes(db, id: id, hashes: recoveryCodeHashes, at: now)
            return true
        }
    }

    /// Turns a superuser's TOTP off: key, pending key and recovery codes gone.
    public func disableSuperuserTOTP(id: String, at now: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE superusers SET totp_secret_sealed = NULL, totp_pending_sealed = NULL,
                        totp_pending_created_at = NULL, totp_last_used_step = NULL, updated_at = ?
                    WHERE id = ?
                    """, arguments: [now.storedText, id])
            try db.execute(sql: "DELETE FROM superuser_recovery_codes WHERE superuser_id = ?", arguments: [id])
        }
    }

    /// Replaces a superuser's recovery codes (only while TOTP is on). False when it is off.
    public func replaceSuperuserRecoveryCodes(id: String, hashes: [String], at now: Date) async throws -> Bool {
        try await pool.write { db in
            guard
                try Bool.fetchOne(
                    db, sql: "SELECT totp_secret_sealed IS NOT NULL FROM superusers WHERE id = ?", arguments: [id]) == true
            else { return false }
            try Self.replaceSuperuserRecoveryCodes(db, id: id, hashes: hashes, at: now)
            return true
        }
    }

    /// Spends one of a superuser's unused recovery codes (TOTP on). False when none matches.
    public func spendSuperuserRecoveryCode(id: String, hash: String, at now: Date) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE superuser_recovery_codes SET used_at = ?
                    WHERE superuser_id = ? AND code_hash = ? AND used_at IS NULL
                      AND EXISTS (SELECT 1 FROM superusers WHERE id = ? AND totp_secret_sealed IS NOT NULL)
                    """, arguments: [now.storedText, id, hash, id])
            return db.changesCount == 1
        }
    }

    public func superuserRecoveryCodesLeft(id: String) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM superuser_recovery_codes WHERE superuser_id = ? AND used_at IS NULL",
                arguments: [id]) ?? 0
        }
    }

    /// The superusers' replay guard, as `claimTOTPStep` for accounts.
    public func claimSuperuserTOTPStep(id: String, step: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE superusers SET totp_last_used_step = ?
                    WHERE id = ? AND totp_secret_sealed IS NOT NULL
                      AND (totp_last_used_step IS NULL OR totp_last_used_step < ?)
                    """, arguments: [step, id, step])
            return db.changesCount == 1
        }
    }

    // MARK: Rows

    private static func claimStep(_ db: Database, userID: UserID, step: Int64) throws -> Bool {
        try db.execute(
            sql: """
                UPDATE totp_credentials SET last_used_step = ?
                WHERE user_id = ? AND enabled = 1 AND (last_used_step IS NULL OR last_used_step < ?)
                """, arguments: [step, userID.rawValue, step])
        return db.changesCount == 1
    }

    private static func replaceRecoveryCodes(_ db: Database, userID: UserID, hashes: [String], at now: Date) throws {
        try db.execute(sql: "DELETE FROM recovery_codes WHERE user_id = ?", arguments: [userID.rawValue])
        for hash in hashes {
            try db.execute(
                sql: "INSERT INTO recovery_codes (user_id, code_hash, created_at) VALUES (?, ?, ?)",
                arguments: [userID.rawValue, hash, now.storedText])
        }
    }

    private static func replaceSuperuserRecoveryCodes(_ db: Database, id: String, hashes: [String], at now: Date) throws {
        try db.execute(sql: "DELETE FROM superuser_recovery_codes WHERE superuser_id = ?", arguments: [id])
        for hash in hashes {
            try db.execute(
                sql: "INSERT INTO superuser_recovery_codes (superuser_id, code_hash, created_at) VALUES (?, ?, ?)",
                arguments: [id, hash, now.storedText])
        }
    }

    private static func credential(_ row: some ColumnValues) throws -> TOTPCredential {
        TOTPCredential(
            userID: UserID(try row.string("user_id")),
            secretSealed: try row.optionalData("secret_sealed").map(Array.init),
            pendingSecretSealed: try row.optionalData("pending_secret_sealed").map(Array.init),
            pendingCreatedAt: try row.optionalDate("pending_created_at"), enabled: try row.bool("enabled"),
            lastUsedStep: try row.optionalInt64("last_used_step"))
    }

    private static func challenge(_ row: Row) throws -> MFAChallengeRecord {
        MFAChallengeRecord(
            idHash: row["id_hash"], userID: UserID(row["user_id"] as String), firstMethod: row["first_method"],
            attempts: row["attempts"], createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"),
            consumedAt: try row.optionalDate("consumed_at"))
    }
}
