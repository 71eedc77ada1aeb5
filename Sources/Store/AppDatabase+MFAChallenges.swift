import AuthCore
import Foundation
import GRDB

/// A pending second step of a person's or a superuser's sign-in.
public struct MFAChallengeRecord: Sendable, Equatable {
    public var idHash: String
    public var holder: CredentialHolder
    /// How the first step was passed ("password", "email_code", "provider", …), for the audit.
    public var firstMethod: String
    public var attempts: Int
    public var createdAt: Date
    public var expiresAt: Date
    public var consumedAt: Date?

    public init(
        idHash: String, holder: CredentialHolder, firstMethod: String, attempts: Int = 0, createdAt: Date, expiresAt: Date,
        consumedAt: Date? = nil
    ) {
        self.idHash = idHash
        self.holder = holder
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
    /// The holder had too many wrong second steps lately: refused like a wrong code.
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
    public func insertMFAChallenge(_ challenge: MFAChallengeRecord) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO mfa_challenges (id_hash, \(challenge.holder.column), first_method, attempts, created_at, expires_at)
                    VALUES (?, ?, ?, 0, ?, ?)
                    """,
                arguments: [
                    challenge.idHash, challenge.holder.key, challenge.firstMethod, challenge.createdAt.storedText,
                    challenge.expiresAt.storedText
                ])
        }
    }

    /// Claims one of a live challenge's `maxAttempts` tries before any code is compared, in one
    /// write: parallel tries can never compare more than `maxAttempts` codes. The holder's wrong
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
                        WHERE \(challenge.holder.column) = ? AND created_at > ?
                        """, arguments: [challenge.holder.key, failuresSince.storedText]) ?? 0
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
                guard try Self.claimStep(db, challenge.holder, step: step) else { return .factorRefused }
            case .recoveryCode(let hash):
                guard try Self.spendRecoveryCode(db, challenge.holder, hash: hash, at: now) else {
                    return .factorRefused
                }
            }
            try db.execute(
                sql: "UPDATE mfa_challenges SET consumed_at = ? WHERE id_hash = ? AND consumed_at IS NULL",
                arguments: [now.storedText, idHash])
            return .completed
        }
    }

    /// Forgets challenges that ended long ago (they only count toward the holder's recent failures).
    public func deleteMFAChallenges(expiredBefore cutoff: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM mfa_challenges WHERE expires_at < ?", arguments: [cutoff.storedText])
        }
    }

    private static func challenge(_ row: Row) throws -> MFAChallengeRecord {
        MFAChallengeRecord(
            idHash: row["id_hash"],
            holder: (row["user_id"] as String?).map { .user(UserID($0)) } ?? .superuser(row["superuser_id"] as String),
            firstMethod: row["first_method"],
            attempts: row["attempts"], createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"),
            consumedAt: try row.optionalDate("consumed_at"))
    }
}
