import AuthCore
import Foundation
import Secrets
import Testing
import TwoFactor

@testable import Store

/// The one owner of authenticator keys and recovery codes, tried for a person and a superuser side
/// by side (issue 45): the same rules for both, and neither's key or code ever serves the other —
/// not even when a person and a superuser share an id.
@Suite struct SecondFactorKeysTests {
    final class Clock: @unchecked Sendable {
        var now = Date(timeIntervalSince1970: 1_800_000_000)
    }

    let store: TestDatabase
    let clock = Clock()
    let keys: SecondFactorKeys
    let person = CredentialHolder.user(UserID("same0000000000a"))
    let staff = CredentialHolder.superuser("same0000000000a")

    init() async throws {
        store = try TestDatabase()
        let clock = clock
        keys = SecondFactorKeys(database: store.database, keyedHash: try KeyedHash(key: Array(repeating: 7, count: 32))) {
            clock.now
        }
        let now = clock.now
        _ = try await store.database.insertUser(
            UserRecord(
                id: UserID("same0000000000a"), email: "ann@example.com", passwordHash: "x", verified: true,
                profile: Profile([:]), createdAt: now, updatedAt: now),
            verificationToken: nil)
        _ = try await store.database.createSuperuser(id: "same0000000000a", email: "ann@example.com", passwordHash: "x", at: now)
    }

    /// Enrols `holder`: the key shown, then a first right code; returns the key and the recovery codes.
    private func enrol(_ holder: CredentialHolder) async throws -> (TOTPSecret, [String]) {
        let secret = try #require(try await keys.pendingKey(holder))
        let code = try TOTP.code(secret: secret.bytes, at: clock.now)
        guard case .enabled(let codes) = try await keys.confirm(holder, code: code) else {
            Issue.record("a right first code did not turn the app on")
            return (secret, [])
        }
        return (secret, codes)
    }

    @Test func eachHolderEnrolsOnTheSameRules() async throws {
        for holder in [person, staff] {
            let shown = try #require(try await keys.pendingKey(holder))
            clock.now += 60
            #expect(try await keys.pendingKey(holder) == shown, "a reload within the enrolment lifetime keeps the key")
            #expect(try await keys.confirm(holder, code: try TOTP.code(secret: shown.bytes, at: clock.now - 300)) == .wrongCode)
            clock.now += TOTPRules.pendingEnrollmentLifetime
            #expect(try await keys.confirm(holder, code: try TOTP.code(secret: shown.bytes, at: clock.now)) == .expired)
            let (_, codes) = try await enrol(holder)
            #expect(codes.count == TOTPRules.recoveryCodeCount)
            #expect(try await keys.pendingKey(holder) == nil, "no new key while the app is on")
            #expect(try await store.database.totpStatus(holder) == TOTPStatus(enabled: true, recoveryCodesLeft: 10))
        }
    }

    @Test func aCodeWorksOnceAndOnlyForItsHolder() async throws {
        let (personKey, _) = try await enrol(person)
        clock.now += 30
        let (staffKey, _) = try await enrol(staff)
        clock.now += 30
        let staffCode = try TOTP.code(secret: staffKey.bytes, at: clock.now)
        #expect(try await keys.claimCode(person, code: staffCode) == false, "a superuser's code is no person's")
        #expect(try await keys.claimCode(staff, code: staffCode))
        #expect(try await keys.claimCode(staff, code: staffCode) == false, "a code works once")
        #expect(try await keys.claimCode(person, code: try TOTP.code(secret: personKey.bytes, at: clock.now)))
    }

    /// One try of `factor` on a fresh pending step of `holder`.
    private func signIn(_ holder: CredentialHolder, _ factor: SecondFactor) async throws -> SecondFactorKeys.ChallengeOutcome {
        let pending = try await keys.startChallenge(for: holder, firstMethod: "password")
        return try await keys.complete(challenge: pending.id, of: holder.kind, with: factor)
    }

    @Test func aRecoveryCodeIsSpentOnceAndOnlyByItsHolder() async throws {
        let (_, personCodes) = try await enrol(person)
        let (_, staffCodes) = try await enrol(staff)
        #expect(try await signIn(person, .recoveryCode(staffCodes[0])) == .wrong, "a superuser's code is no person's")
        #expect(try await signIn(staff, .recoveryCode(personCodes[0])) == .wrong, "a person's code is no superuser's")
        #expect(try await signIn(staff, .recoveryCode(staffCodes[0].uppercased())) == .passed(staff, firstMethod: "password"))
        #expect(try await signIn(staff, .recoveryCode(staffCodes[0])) == .wrong, "a recovery code works once")
        #expect(try await store.database.totpStatus(staff).recoveryCodesLeft == 9)
        #expect(try await store.database.totpStatus(person).recoveryCodesLeft == 10)
        let fresh = try #require(try await keys.regenerateRecoveryCodes(staff))
        #expect(try await signIn(staff, .recoveryCode(staffCodes[1])) == .wrong, "new codes end the old ones")
        #expect(try await signIn(staff, .recoveryCode(fresh[0])) == .passed(staff, firstMethod: "password"))
    }

    @Test func aPendingStepIsCompletedOnlyAsItsKindOfHolder() async throws {
        let (staffKey, _) = try await enrol(staff)
        clock.now += 30
        let pending = try await keys.startChallenge(for: staff, firstMethod: "password")
        let code = SecondFactor.totp(code: try TOTP.code(secret: staffKey.bytes, at: clock.now))
        #expect(
            try await keys.complete(challenge: pending.id, of: .user, with: code) == .dead,
            "a superuser's step on the people's way")
        #expect(
            try await keys.complete(challenge: pending.id, of: .superuser, with: code) == .passed(staff, firstMethod: "password"))
        #expect(try await keys.complete(challenge: pending.id, of: .superuser, with: code) == .dead, "a step completes once")
    }

    @Test func wrongStepsAreCappedPerHolderAcrossFreshSignIns() async throws {
        _ = try await enrol(staff)
        _ = try await enrol(person)
        for _ in 0..<TOTPRules.wrongStepsPerAccount {
            #expect(try await signIn(staff, .recoveryCode("not-a-code")) == .wrong)
        }
        let codes = try #require(try await keys.regenerateRecoveryCodes(staff))
        #expect(try await signIn(staff, .recoveryCode(codes[0])) == .wrong, "the eleventh try this hour, right or not")
        let personCodes = try #require(try await keys.regenerateRecoveryCodes(person))
        #expect(try await signIn(person, .recoveryCode(personCodes[0])) == .passed(person, firstMethod: "password"))
        clock.now += TOTPRules.failureWindow + 1
        #expect(try await signIn(staff, .recoveryCode(codes[0])) == .passed(staff, firstMethod: "password"))
    }

    @Test func turningOffOneHoldersAppLeavesTheOthers() async throws {
        _ = try await enrol(person)
        _ = try await enrol(staff)
        #expect(try await keys.disable(staff))
        #expect(try await keys.isOn(staff) == false)
        #expect(try await keys.isOn(person))
        #expect(try await keys.regenerateRecoveryCodes(staff) == nil, "no codes while the app is off")
        #expect(try await store.database.totpStatus(staff) == TOTPStatus(enabled: false, recoveryCodesLeft: 0))
    }
}
