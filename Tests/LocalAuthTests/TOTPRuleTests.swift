import AuthCore
import Foundation
import GRDB
import Testing
import TwoFactor

@testable import LocalAuth
@testable import Store

/// The embedded backend's two-step sign-in rules (issue 10 item 4): enrolment, the second step of
/// every sign-in, replay, tries, recovery codes, re-authentication and support's reset.
@Suite struct TOTPRuleTests {
    /// A verified account with TOTP on; returns its key and recovery codes.
    private func enrolled(_ h: Harness, _ api: LocalBackend, email: String = "ann@example.com") async throws
        -> (secret: [UInt8], codes: [String])
    {
        let code = try await h.signUpForCode(email)
        let session = try #require(try await api.verifyEmail(email: email, code: code).session)
        let enrollment = try await api.beginTOTPEnrollment(session: session)
        #expect(enrollment.provisioningURL.hasPrefix("otpauth://totp/Gatehouse:"))
        let secret = try #require(TOTPSecret(base32: enrollment.secret)).bytes
        await #expect(throws: AuthError.invalidCode) {
            try await api.confirmTOTPEnrollment(
                code: wrongCode(than: try TOTP.code(secret: secret, at: h.clock.now)), session: session)
        }
        let codes = try await api.confirmTOTPEnrollment(code: try TOTP.code(secret: secret, at: h.clock.now), session: session)
        #expect(codes.count == 10 && Set(codes).count == 10)
        #expect(try await api.totpStatus(session: session) == TOTPStatus(enabled: true, recoveryCodesLeft: 10))
        // The confirming code's step is spent: the first sign-in needs the next one.
        h.clock.advance(by: 30)
        return (secret, codes)
    }

    /// The challenge a right password yields on an account with TOTP on.
    private func challenge(_ api: LocalBackend, email: String = "ann@example.com") async throws -> MFAChallenge {
        guard case .secondStep(let challenge) = try await api.signIn(email: email, password: "quiet-otter-321") else {
            throw TestFailure("sign-in did not ask for a second step")
        }
        #expect(challenge.methods == [.totp, .recoveryCode])
        return challenge
    }

    @Test func passwordSignInAsksForTheCodeAndACodeWorksOnce() async throws {
        let h = try Harness()
        let api = LocalBackend(accounts: h.backend)
        let (secret, _) = try await enrolled(h, api)
        let first = try await challenge(api)
        let code = try TOTP.code(secret: secret, at: h.clock.now)
        let session = try await api.completeMFA(challengeID: first.id, with: .totp(code: code))
        #expect(try await api.currentUser(session).email == "ann@example.com")
        // The challenge is spent, and the same code in the same step is refused on a new one.
        await #expect(throws: AuthError.codeExpired) { try await api.completeMFA(challengeID: first.id, with: .totp(code: code)) }
        let second = try await challenge(api)
        await #expect(throws: AuthError.invalidCode) {
            try await api.completeMFA(challengeID: second.id, with: .totp(code: code))
        }
        h.clock.advance(by: 30)
        _ = try await api.completeMFA(challengeID: second.id, with: .totp(code: try TOTP.code(secret: secret, at: h.clock.now)))
    }

    @Test func fiveWrongTriesKillTheChallengeAndItExpiresAfterFiveMinutes() async throws {
        let h = try Harness()
        let api = LocalBackend(accounts: h.backend)
        let (secret, _) = try await enrolled(h, api)
        let pending = try await challenge(api)
        let right = try TOTP.code(secret: secret, at: h.clock.now)
        for _ in 0..<5 {
            await #expect(throws: AuthError.invalidCode) {
                try await api.completeMFA(challengeID: pending.id, with: .totp(code: wrongCode(than: right)))
            }
        }
        await #expect(throws: AuthError.codeExpired) {
            try await api.completeMFA(challengeID: pending.id, with: .totp(code: right))
        }

        let late = try await challenge(api)
        h.clock.advance(by: 6 * 60)
        await #expect(throws: AuthError.codeExpired) {
            try await api.completeMFA(challengeID: late.id, with: .totp(code: try TOTP.code(secret: secret, at: h.clock.now)))
        }
        await #expect(throws: AuthError.codeExpired) {
            try await api.completeMFA(challengeID: "made-up", with: .totp(code: right))
        }
    }

    @Test func newSignInsBuyNoFreshGuessesPastTheAccountCeiling() async throws {
        let h = try Harness()
        let api = LocalBackend(accounts: h.backend)
        let (secret, _) = try await enrolled(h, api)
        for _ in 0..<(TOTPRules.wrongStepsPerAccount / TOTPRules.triesPerStep) {
            let pending = try await challenge(api)
            for _ in 0..<TOTPRules.triesPerStep {
                _ = await caughtError { _ = try await api.completeMFA(challengeID: pending.id, with: .totp(code: "000000")) }
            }
        }
        // Past the ceiling a right code answers exactly like a wrong one…
        let throttled = try await challenge(api)
        await #expect(throws: AuthError.invalidCode) {
            try await api.completeMFA(
                challengeID: throttled.id, with: .totp(code: try TOTP.code(secret: secret, at: h.clock.now)))
        }
        // …until the hour has passed.
        h.clock.advance(by: 3601)
        let later = try await challenge(api)
        _ = try await api.completeMFA(challengeID: later.id, with: .totp(code: try TOTP.code(secret: secret, at: h.clock.now)))
    }

    @Test func recoveryCodesWorkOnceInAnyTypingAndRegenerationReplacesThem() async throws {
        let h = try Harness()
        let api = LocalBackend(accounts: h.backend)
        let (_, codes) = try await enrolled(h, api)
        let typed = " " + codes[0].uppercased().replacingOccurrences(of: "-", with: " ") + " "
        let session = try await api.completeMFA(challengeID: try await challenge(api).id, with: .recoveryCode(typed))
        #expect(try await api.totpStatus(session: session).recoveryCodesLeft == 9)
        await #expect(throws: AuthError.invalidCode) {
            try await api.completeMFA(challengeID: try await challenge(api).id, with: .recoveryCode(codes[0]))
        }
        await #expect(throws: AuthError.invalidCredentials) {
            try await api.regenerateRecoveryCodes(password: "wrong-password", session: session)
        }
        let fresh = try await api.regenerateRecoveryCodes(password: "quiet-otter-321", session: session)
        #expect(fresh.count == 10 && Set(fresh).isDisjoint(with: codes))
        await #expect(throws: AuthError.invalidCode) {
            try await api.completeMFA(challengeID: try await challenge(api).id, with: .recoveryCode(codes[1]))
        }
        _ = try await api.completeMFA(challengeID: try await challenge(api).id, with: .recoveryCode(fresh[1]))
        // Only hashes are stored.
        let stored = try await h.database.pool.read { db in try String.fetchAll(db, sql: "SELECT code_hash FROM recovery_codes") }
        #expect(
            stored.count == 10 && stored.allSatisfy { hash in !fresh.contains { hash.contains(RecoveryCodes.normalize($0)) } })
    }

    @Test func parallelCompletionsOfOneCodeLetExactlyOneIn() async throws {
        let h = try Harness()
        let api = LocalBackend(accounts: h.backend)
        let (secret, codes) = try await enrolled(h, api)
        let pendings = [try await challenge(api), try await challenge(api), try await challenge(api)]
        let code = try TOTP.code(secret: secret, at: h.clock.now)
        let wins = await withTaskGroup(of: Bool.self) { group in
            for pending in pendings + pendings {
                group.addTask { (try? await api.completeMFA(challengeID: pending.id, with: .totp(code: code))) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
        // Two challenges racing one recovery code: one wins, and no second code is spent.
        let racing = [try await challenge(api), try await challenge(api)]
        let recoveryWins = await withTaskGroup(of: Bool.self) { group in
            for pending in racing {
                group.addTask { (try? await api.completeMFA(challengeID: pending.id, with: .recoveryCode(codes[2]))) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(recoveryWins == 1)
        #expect(
            try await h.database.totpStatus(userID: try #require(try await h.database.user(email: "ann@example.com")).id)
                == TOTPStatus(enabled: true, recoveryCodesLeft: 9))
    }

    @Test func turningOffNeedsThePasswordAndThenSignInNeedsNoCode() async throws {
        let h = try Harness()
        let api = LocalBackend(accounts: h.backend)
        let (secret, _) = try await enrolled(h, api)
        let session = try await api.completeMFA(
            challengeID: try await challenge(api).id, with: .totp(code: try TOTP.code(secret: secret, at: h.clock.now)))
        await #expect(throws: AuthError.invalidCredentials) {
            try await api.disableTOTP(password: "nope-nope-nope", session: session)
        }
        #expect(try await api.totpStatus(session: session).enabled)
        try await api.disableTOTP(password: "quiet-otter-321", session: session)
        #expect(try await api.totpStatus(session: session) == TOTPStatus(enabled: false, recoveryCodesLeft: 0))
        #expect(try await h.count("recovery_codes") == 0)
        #expect(try await h.count("totp_credentials") == 0)
        #expect(try await api.signIn(email: "ann@example.com", password: "quiet-otter-321").session != nil)
    }

    @Test func theKeyIsStoredSealedAndAFreshPendingKeyIsKeptUntilConfirmed() async throws {
        let h = try Harness()
        let api = LocalBackend(accounts: h.backend)
        let code = try await h.signUpForCode("ann@example.com")
        let session = try #require(try await api.verifyEmail(email: "ann@example.com", code: code).session)
        let first = try await api.beginTOTPEnrollment(session: session)
        #expect(try await api.beginTOTPEnrollment(session: session) == first, "reloading the page keeps the key")
        let sealed = try await h.database.pool.read { db in
            try Data.fetchOne(db, sql: "SELECT pending_secret_sealed FROM totp_credentials")
        }
        #expect(sealed != nil && !String(decoding: sealed ?? Data(), as: UTF8.self).contains(first.secret))
        h.clock.advance(by: TOTPRules.pendingEnrollmentLifetime + 1)
        #expect(try await api.beginTOTPEnrollment(session: session).secret != first.secret, "a stale key is replaced")
        #expect(try await api.totpStatus(session: session).enabled == false)
    }

    @Test func everySignInPathAsksAndImpersonationDoesNot() async throws {
        let h = try Harness()
        let api = LocalBackend(accounts: h.backend)
        _ = try await enrolled(h, api)
        let user = try #require(try await h.database.user(email: "ann@example.com"))
        // Provider sign-in of the linked identity.
        _ = try await h.database.linkExternal(
            ExternalIdentity(provider: "test", subject: "ann-1", email: "ann@example.com", emailVerified: true),
            to: user.id, at: h.clock.now)
        let viaProvider = try await api.signIn(
            with: ExternalIdentity(provider: "test", subject: "ann-1", email: "ann@example.com", emailVerified: true),
            allowCreate: false)
        guard case .secondStep = viaProvider.result else { throw TestFailure("provider sign-in: \(viaProvider)") }
        // Code verification (an address verified again, e.g. after support unverified it).
        try await h.database.pool.write { db in try db.execute(sql: "UPDATE users SET verified = 0") }
        try await h.backend.resendVerification(email: "ann@example.com")
        let viaCode = try await api.verifyEmail(
            email: "ann@example.com", code: try await h.latestMail(to: "ann@example.com").code ?? "")
        guard case .secondStep? = viaCode.signIn else { throw TestFailure("code verification: \(viaCode)") }
        // Support staff are not asked.
        let impersonation = try await api.admin.impersonate(user.id, duration: 600, actor: "staff@example.com")
        #expect(try await api.currentUser(impersonation).id == user.id)
    }

    @Test func supportResetTurnsItOff() async throws {
        let h = try Harness()
        let api = LocalBackend(accounts: h.backend)
        _ = try await enrolled(h, api)
        let user = try #require(try await h.database.user(email: "ann@example.com"))
        #expect(try await api.admin.totpStatus(of: user.id).enabled)
        try await api.admin.resetTOTP(of: user.id)
        #expect(try await api.admin.totpStatus(of: user.id) == TOTPStatus(enabled: false, recoveryCodesLeft: 0))
        #expect(try await api.signIn(email: "ann@example.com", password: "quiet-otter-321").session != nil)
        await #expect(throws: AuthError.userNotFound) { try await api.admin.resetTOTP(of: UserID("nobody")) }
    }

    @Test func accountsWithoutAPasswordConfirmWithACurrentCode() async throws {
        let h = try Harness()
        let api = LocalBackend(accounts: h.backend)
        let (secret, _) = try await enrolled(h, api)
        try await h.database.pool.write { db in try db.execute(sql: "UPDATE users SET password_hash = NULL") }
        let user = try #require(try await h.database.user(email: "ann@example.com"))
        let session = try await api.admin.impersonate(user.id, duration: 600, actor: "test")
        let code = try TOTP.code(secret: secret, at: h.clock.now)
        await #expect(throws: AuthError.invalidCredentials) {
            try await api.regenerateRecoveryCodes(password: "quiet-otter-321", session: session)
        }
        _ = try await api.regenerateRecoveryCodes(password: code, session: session)
        // The code is spent: it cannot confirm a second change in the same step.
        await #expect(throws: AuthError.invalidCredentials) { try await api.disableTOTP(password: code, session: session) }
        h.clock.advance(by: 30)
        try await api.disableTOTP(password: try TOTP.code(secret: secret, at: h.clock.now), session: session)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
