import AuthCore
import Foundation
import Secrets
import TwoFactor

/// Pending second steps, for people and superusers alike, on `TOTPRules`: a sign-in whose first
/// step passed waits `TOTPRules.stepLifetime` for the authenticator's code or a recovery code, with
/// `TOTPRules.triesPerStep` tries, each claimed before a code is compared; a holder's wrong tries
/// over all their pending steps of the last `TOTPRules.failureWindow` stay under
/// `TOTPRules.wrongStepsPerAccount`, so new sign-ins buy no new guesses; and the factor and the step
/// are spent in one transaction, so of parallel completions exactly one wins. A step's id is a
/// random token kept as its keyed hash under its kind of holder: a person's id never completes a
/// superuser's step, nor the reverse.
extension SecondFactorKeys {
    /// A pending second step for `holder`, after `firstMethod` ("password", "email_code", …)
    /// passed: its id (shown once) and its end.
    public func startChallenge(for holder: CredentialHolder, firstMethod: String) async throws -> (id: String, expiresAt: Date) {
        let now = time(of: holder)
        let id = SecureRandom.token()
        // Steps matter only for the holder's recent failures: forget the ones past that window.
        try await database.deleteMFAChallenges(expiredBefore: clock().addingTimeInterval(-TOTPRules.failureWindow))
        let expiresAt = now.addingTimeInterval(TOTPRules.stepLifetime)
        try await database.insertMFAChallenge(
            MFAChallengeRecord(
                idHash: challengeHash(id, holder.kind), holder: holder, firstMethod: firstMethod, createdAt: now,
                expiresAt: expiresAt))
        return (id, expiresAt)
    }

    /// What one try at a pending second step came to.
    public enum ChallengeOutcome: Sendable, Equatable {
        /// Both steps passed: whose sign-in it was, and how its first step passed.
        case passed(CredentialHolder, firstMethod: String)
        /// A wrong, replayed or spent code, or the holder's wrong tries this hour are used up; the
        /// step lives on while it has tries.
        case wrong
        /// Unknown, expired, spent or out of tries: sign in again.
        case dead
    }

    /// One try of an authenticator or recovery code on the pending step `id` of a `kind` holder.
    public func complete(challenge id: String, of kind: CredentialHolder.Kind, with factor: SecondFactor) async throws
        -> ChallengeOutcome
    {
        let idHash = challengeHash(id, kind)
        let now = try await time(ofChallenge: idHash)
        let challenge: MFAChallengeRecord
        switch try await database.claimMFAAttempt(
            idHash: idHash, maxAttempts: TOTPRules.triesPerStep, maxAccountFailures: TOTPRules.wrongStepsPerAccount,
            failuresSince: now.addingTimeInterval(-TOTPRules.failureWindow), now: now)
        {
        case .dead: return .dead
        case .accountThrottled: return .wrong
        case .claimed(let claimed): challenge = claimed
        }
        let spent: SpentFactor
        switch factor {
        case .totp(let code):
            guard let step = try await matchingStep(challenge.holder, code: code) else { return .wrong }
            spent = .totpStep(step)
        case .recoveryCode(let typed):
            guard !RecoveryCodes.normalize(typed).isEmpty else { return .wrong }
            spent = .recoveryCode(hash: recoveryCodeHash(typed, challenge.holder))
        case .emailOTP:
            return .wrong
        }
        switch try await database.completeMFAChallenge(idHash: idHash, spending: spent, now: now) {
        case .completed: return .passed(challenge.holder, firstMethod: challenge.firstMethod)
        case .factorRefused: return .wrong
        case .challengeDead: return .dead
        }
    }

    /// The person a second step `challengeID` belongs to, whatever its state (live, spent or
    /// expired): how a refused step is recorded against its account. Nil when unknown.
    public func owner(ofChallenge challengeID: String) async throws -> UserID? {
        try await database.mfaChallengeOwner(idHash: challengeHash(challengeID, .user))
    }

    /// The holder's time: a person's own clock (`AccountClockOffsets`, which a test suite may have
    /// moved ahead), so their pending steps end in it; the server's for a superuser.
    private func time(of holder: CredentialHolder) -> Date {
        guard case .user(let id) = holder else { return clock() }
        return database.now(for: id, clock: clock)
    }

    /// The time of the person whose step `idHash` is: the step's owner is only looked up while some
    /// account's clock is moved.
    private func time(ofChallenge idHash: String) async throws -> Date {
        guard database.accountClockOffsets.anyMoved, let owner = try await database.mfaChallengeOwner(idHash: idHash) else {
            return clock()
        }
        return database.now(for: owner, clock: clock)
    }

    private func challengeHash(_ id: String, _ kind: CredentialHolder.Kind) -> String {
        switch kind {
        case .user: keyedHash.hex("mfa-challenge:" + id)
        case .superuser: keyedHash.hex("console-mfa-challenge:" + id)
        }
    }
}
