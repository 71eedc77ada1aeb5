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
        if token.consumedAt != nil || token.attempts >= maxAttempts || token.expiresAt <= now {
            return .refuseExpired
        }
        return secretMatches ? .consume : .countWrongAttempt
    }
}
