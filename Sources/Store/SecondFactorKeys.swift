import Foundation
import Secrets
import TwoFactor

/// The one owner of authenticator keys and recovery codes, for a person on the embedded backend
/// (`LocalAccounts`) and a superuser (`StaffSignIn`) alike, on `TOTPRules`: a key is sealed under
/// a key derived from the key file's (the SQLite file alone cannot make codes); a code is accepted
/// for its step ±1 and only when that step is newer than the last one accepted, so a code never
/// works twice; a key shown for enrolment stays the one to confirm for
/// `TOTPRules.pendingEnrollmentLifetime`; recovery codes are single-use and kept as keyed hashes
/// bound to their holder. Each kind of holder seals and hashes under its own label, so a
/// superuser's key or code can never serve a person, nor the reverse.
public struct SecondFactorKeys: Sendable {
    let database: AppDatabase
    let keyedHash: KeyedHash
    let clock: @Sendable () -> Date

    public init(database: AppDatabase, keyedHash: KeyedHash, clock: @escaping @Sendable () -> Date) {
        (self.database, self.keyedHash, self.clock) = (database, keyedHash, clock)
    }

    /// Whether the holder's authenticator app is on.
    public func isOn(_ holder: CredentialHolder) async throws -> Bool {
        try await database.totpCredential(holder)?.enabled ?? false
    }

    /// The key to show for enrolment: the pending one while it is fresh, else a new one kept
    /// pending. Nil when the app is already on.
    public func pendingKey(_ holder: CredentialHolder) async throws -> TOTPSecret? {
        let now = clock()
        let stored = try await database.totpCredential(holder)
        if stored?.enabled == true { return nil }
        if let pending = Self.fresh(stored, now: now), let secret = try? open(pending, holder) { return secret }
        let secret = TOTPSecret()
        guard try await database.setPendingTOTPSecret(holder, sealed: try box(holder).seal(secret.base32), at: now) else {
            return nil
        }
        return secret
    }

    /// What confirming enrolment came to.
    public enum Enrollment: Sendable, Equatable {
        /// The app is on; its recovery codes, shown once.
        case enabled(recoveryCodes: [String])
        case wrongCode
        /// No fresh pending key (or it changed meanwhile, or the app is on already).
        case expired
    }

    /// Turns the app on with a first right code for the fresh pending key.
    public func confirm(_ holder: CredentialHolder, code: String) async throws -> Enrollment {
        let now = clock()
        guard let stored = try await database.totpCredential(holder), !stored.enabled,
            let pending = Self.fresh(stored, now: now)
        else { return .expired }
        guard let step = try TOTP().matchingStep(code, secret: try open(pending, holder).bytes, at: now) else {
            return .wrongCode
        }
        let codes = RecoveryCodes.generate()
        guard
            try await database.enableTOTP(
                holder, pendingSealed: pending, step: step, recoveryCodeHashes: codes.map { recoveryCodeHash($0, holder) },
                at: now)
        else { return .expired }
        return .enabled(recoveryCodes: codes)
    }

    /// The step a right code for the holder's key is for, not yet claimed (a people's sign-in
    /// claims it with its challenge, in one transaction); nil when wrong or the app is off.
    public func matchingStep(_ holder: CredentialHolder, code: String) async throws -> Int64? {
        guard let stored = try await database.totpCredential(holder), stored.enabled, let sealed = stored.secretSealed
        else { return nil }
        return try TOTP().matchingStep(code, secret: try open(sealed, holder).bytes, at: clock())
    }

    /// A right code whose step is newer than the last one used (which it then becomes).
    public func claimCode(_ holder: CredentialHolder, code: String) async throws -> Bool {
        guard let step = try await matchingStep(holder, code: code) else { return false }
        return try await database.claimTOTPStep(holder, step: step)
    }

    /// A fresh set of recovery codes (the old ones stop working); nil when the app is off.
    public func regenerateRecoveryCodes(_ holder: CredentialHolder) async throws -> [String]? {
        let codes = RecoveryCodes.generate()
        guard
            try await database.replaceRecoveryCodes(
                holder, hashes: codes.map { recoveryCodeHash($0, holder) }, at: clock())
        else { return nil }
        return codes
    }

    /// Turns the app off: key, pending key and recovery codes go. Returns whether it was on.
    @discardableResult
    public func disable(_ holder: CredentialHolder) async throws -> Bool {
        try await database.disableTOTP(holder)
    }

    /// A recovery code as kept: its keyed hash, bound to the holder.
    public func recoveryCodeHash(_ code: String, _ holder: CredentialHolder) -> String {
        let label =
            switch holder {
            case .user(let id): "recovery-code:\(id.rawValue):"
            case .superuser(let id): "console-recovery-code:\(id):"
            }
        return keyedHash.hex(label + RecoveryCodes.normalize(code))
    }

    /// The pending key while it is younger than `TOTPRules.pendingEnrollmentLifetime`.
    private static func fresh(_ stored: TOTPCredential?, now: Date) -> [UInt8]? {
        guard let stored, let pending = stored.pendingSecretSealed, let created = stored.pendingCreatedAt,
            now.timeIntervalSince(created) < TOTPRules.pendingEnrollmentLifetime
        else { return nil }
        return pending
    }

    /// Seals keys under a key derived from the key file's (never stored in the database), one per
    /// kind of holder.
    func box(_ holder: CredentialHolder) throws -> SecretBox {
        let label =
            switch holder {
            case .user: "totp-secrets"
            case .superuser: "console-totp-secrets"
            }
        return try SecretBox(key: keyedHash.derivedKey(for: label))
    }

    private func open(_ sealed: [UInt8], _ holder: CredentialHolder) throws -> TOTPSecret {
        guard let secret = TOTPSecret(base32: try box(holder).open(sealed)) else { throw SecretsError.openFailed }
        return secret
    }
}
