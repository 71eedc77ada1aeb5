import AuthCore
import Foundation
import Store
import TwoFactor

/// Two-step sign-in on the embedded store: the account's authenticator key and recovery codes are
/// `SecondFactorKeys`' (the one owner, superusers' too), and the pending second steps of sign-ins
/// are kept here, on `TOTPRules`.
extension LocalAccounts {
    /// The issuer authenticator apps show next to the account.
    public static let totpIssuer = "Gatehouse"

    /// Whether the account asks for a second step.
    func totpEnabled(_ userID: UserID) async throws -> Bool {
        try await secondFactors.isOn(.user(userID))
    }

    func totpStatus(_ userID: UserID) async throws -> TOTPStatus {
        guard let status = try await database.totpStatus(userID: userID) else { throw AuthError.userNotFound }
        return status
    }

    /// The key waiting for its first code: the pending one while it is fresh, else a new one.
    func beginTOTPEnrollment(_ user: User) async throws -> TOTPEnrollment {
        guard let secret = try await secondFactors.pendingKey(.user(user.id)) else { throw Self.alreadyOn }
        return TOTPEnrollment(
            secret: secret.base32, provisioningURL: secret.provisioningURL(issuer: Self.totpIssuer, account: user.email))
    }

    /// Turns TOTP on with a first right code for the pending key; returns the recovery codes.
    func confirmTOTPEnrollment(_ userID: UserID, code: String) async throws -> [String] {
        switch try await secondFactors.confirm(.user(userID), code: code) {
        case .enabled(let codes):
            logger.info("TOTP turned on", metadata: ["user": "\(userID)"])
            return codes
        case .wrongCode:
            logger.notice("wrong code confirming TOTP", metadata: ["user": "\(userID)"])
            throw AuthError.invalidCode
        case .expired:
            throw AuthError.codeExpired
        }
    }

    func disableTOTP(_ userID: UserID, password: String) async throws {
        try await reauthenticate(userID, password: password)
        try await secondFactors.disable(.user(userID))
        logger.info("TOTP turned off", metadata: ["user": "\(userID)"])
    }

    func regenerateRecoveryCodes(_ userID: UserID, password: String) async throws -> [String] {
        try await reauthenticate(userID, password: password)
        guard let codes = try await secondFactors.regenerateRecoveryCodes(.user(userID)) else { throw Self.notOn }
        logger.info("recovery codes regenerated", metadata: ["user": "\(userID)"])
        return codes
    }

    /// Support's reset: TOTP off, key and recovery codes gone.
    func resetTOTP(_ userID: UserID) async throws {
        guard try await database.user(id: userID) != nil else { throw AuthError.userNotFound }
        try await secondFactors.disable(.user(userID))
        logger.info("TOTP reset by support", metadata: ["user": "\(userID)"])
    }

    /// Checks the person again before a change to their second step. An account with a password
    /// gives the password; an account without one (provider-only) gives a current authenticator
    /// code instead — the only secret it has here — which is then spent like a sign-in code.
    /// Anything wrong is `.invalidCredentials`.
    func reauthenticate(_ userID: UserID, password: String) async throws {
        guard let user = try await database.user(id: userID), !user.disabled else { throw AuthError.invalidCredentials }
        if let hash = user.passwordHash {
            guard await hasher.verify(password, against: hash) else { throw AuthError.invalidCredentials }
            return
        }
        guard try await secondFactors.claimCode(.user(userID), code: password) else { throw AuthError.invalidCredentials }
    }

    // MARK: The second step of a sign-in

    /// A pending second step for `userID`, after `firstMethod` passed (`SecondFactorKeys`' rules).
    func startMFAChallenge(for userID: UserID, firstMethod: String) async throws -> MFAChallenge {
        let pending = try await secondFactors.startChallenge(for: .user(userID), firstMethod: firstMethod)
        logger.info("second step asked", metadata: ["user": "\(userID)", "first": "\(firstMethod)"])
        return MFAChallenge(id: pending.id, methods: [.totp, .recoveryCode], expiresAt: pending.expiresAt)
    }

    /// The account whose sign-in `challengeID` finishes. Wrong: `.invalidCode`; unknown, expired,
    /// spent or out of tries, or the account gone or disabled: `.codeExpired`.
    func completeMFA(challengeID: String, with factor: SecondFactor) async throws -> User {
        if case .emailOTP = factor { throw AuthError.notSupported(.emailOTP) }
        switch try await secondFactors.complete(challenge: challengeID, of: .user, with: factor) {
        case .dead:
            throw AuthError.codeExpired
        case .wrong:
            logger.notice("wrong second step")
            throw AuthError.invalidCode
        case .passed(let holder, let firstMethod):
            guard case .user(let id) = holder, let user = try await database.user(id: id), !user.disabled else {
                throw AuthError.codeExpired
            }
            logger.info("second step passed", metadata: ["user": "\(id)", "first": "\(firstMethod)"])
            return user.user
        }
    }

    // MARK: Keys and hashes

    /// The account's authenticator key and recovery codes, with the one owner superusers' use too.
    var secondFactors: SecondFactorKeys { SecondFactorKeys(database: database, keyedHash: keyedHash, clock: clock) }

    /// The account the second step `challengeID` belongs to, whatever its state.
    func owner(ofChallenge challengeID: String) async throws -> UserID? {
        try await secondFactors.owner(ofChallenge: challengeID)
    }

    private static var alreadyOn: AuthError {
        .validation([FieldError(field: "totp", message: "Two-step sign-in is already on. Turn it off first to set up a new key.")]
        )
    }

    private static var notOn: AuthError {
        .validation([FieldError(field: "totp", message: "Two-step sign-in is off, so there are no recovery codes.")])
    }
}
