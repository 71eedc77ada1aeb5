import AuthCore
import Foundation
import Testing

@testable import LocalAuth
@testable import Store

/// The pure decision behind code and link checks, one transition at a time.
@Suite struct TokenCheckTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func token(attempts: Int = 0, consumed: Bool = false, expiresIn seconds: TimeInterval = 600) -> VerificationTokenRecord {
        var token = VerificationTokenRecord(
            userID: UserID("u"), purpose: .verifyEmail, kind: .code, secretHash: "h",
            expiresAt: now.addingTimeInterval(seconds), createdAt: now)
        token.attempts = attempts
        token.consumedAt = consumed ? now : nil
        return token
    }

    @Test func liveTokenConsumesOnMatchAndCountsOnMismatch() {
        #expect(TokenCheck.decide(token(), secretMatches: true, now: now, maxAttempts: 5) == .consume)
        #expect(TokenCheck.decide(token(attempts: 4), secretMatches: false, now: now, maxAttempts: 5) == .countWrongAttempt)
    }

    @Test func deadTokensRefuseEvenTheRightSecret() {
        #expect(TokenCheck.decide(token(attempts: 5), secretMatches: true, now: now, maxAttempts: 5) == .refuseExpired)
        #expect(TokenCheck.decide(token(consumed: true), secretMatches: true, now: now, maxAttempts: 5) == .refuseExpired)
        #expect(TokenCheck.decide(token(expiresIn: 0), secretMatches: true, now: now, maxAttempts: 5) == .refuseExpired)
        #expect(TokenCheck.decide(token(expiresIn: -1), secretMatches: false, now: now, maxAttempts: 5) == .refuseExpired)
    }
}
