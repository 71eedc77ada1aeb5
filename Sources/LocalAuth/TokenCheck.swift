import AuthCore
import Foundation
import Store

/// The decision for one submitted code or link, as a pure function of the stored token's state:
/// a token is live until it is consumed, superseded, expired or out of attempts.
enum TokenCheck: Equatable {
    /// The secret is right and the token live: spend it (the store's conditional UPDATE has the
    /// last word under races).
    case consume
    /// The secret is wrong and the token live: the claimed attempt counts, answer `.invalidCode`.
    case countWrongAttempt
    /// The token is dead; answer `.codeExpired` whatever was typed.
    case refuseExpired

    static func decide(_ token: VerificationTokenRecord, secretMatches: Bool, now: Date, maxAttempts: Int) -> TokenCheck {
        decide(
            consumedAt: token.consumedAt, attempts: token.attempts, expiresAt: token.expiresAt,
            secretMatches: secretMatches, now: now, maxAttempts: maxAttempts)
    }

    /// The same decision for a passwordless sign-in code.
    static func decide(_ token: SignInTokenRecord, secretMatches: Bool, now: Date, maxAttempts: Int) -> TokenCheck {
        decide(
            consumedAt: token.consumedAt, attempts: token.attempts, expiresAt: token.expiresAt,
            secretMatches: secretMatches, now: now, maxAttempts: maxAttempts)
    }

    private static func decide(
        consumedAt: Date?, attempts: Int, expiresAt: Date, secretMatches: Bool, now: Date, maxAttempts: Int
    ) -> TokenCheck {
        if consumedAt != nil || attempts >= maxAttempts || expiresAt <= now {
            return .refuseExpired
        }
        return secretMatches ? .consume : .countWrongAttempt
    }
}
