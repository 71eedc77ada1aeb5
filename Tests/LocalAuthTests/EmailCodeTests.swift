import AuthCore
import Foundation
import GRDB
import Testing

@testable import LocalAuth
@testable import Store

/// The 6-digit code: single use, 10 minutes, 5 wrong tries, and replaced by a resend.
@Suite struct EmailCodeTests {
    @Test func wrongCodeIsInvalidAndTheRightOneStillWorks() async throws {
        let h = try Harness()
        let code = try await h.signUpForCode("ann@example.com")
        await #expect(throws: AuthError.invalidCode) {
            try await h.backend.verifyEmail(email: "ann@example.com", code: wrongCode(than: code))
        }
        #expect(try await h.backend.verifyEmail(email: "ann@example.com", code: " \(code) ").emailVerified)
    }

    @Test func unknownEmailIsInvalidCode() async throws {
        let h = try Harness()
        await #expect(throws: AuthError.invalidCode) {
            try await h.backend.verifyEmail(email: "nobody@example.com", code: "123456")
        }
    }

    @Test func codeExpiresAfterTenMinutes() async throws {
        let h = try Harness()
        let code = try await h.signUpForCode("ann@example.com")
        h.clock.advance(by: 10 * 60)
        await #expect(throws: AuthError.codeExpired) {
            try await h.backend.verifyEmail(email: "ann@example.com", code: code)
        }
    }

    @Test func codeWorksOnce() async throws {
        let h = try Harness()
        let code = try await h.signUpForCode("ann@example.com")
        _ = try await h.backend.verifyEmail(email: "ann@example.com", code: code)
        await #expect(throws: AuthError.codeExpired) {
            try await h.backend.verifyEmail(email: "ann@example.com", code: code)
        }
    }

    @Test func fiveWrongTriesKillTheCode() async throws {
        let h = try Harness()
        let code = try await h.signUpForCode("ann@example.com")
        for _ in 0..<5 {
            await #expect(throws: AuthError.invalidCode) {
                try await h.backend.verifyEmail(email: "ann@example.com", code: wrongCode(than: code))
            }
        }
        await #expect(throws: AuthError.codeExpired) {
            try await h.backend.verifyEmail(email: "ann@example.com", code: code)
        }
        await #expect(throws: AuthError.emailNotVerified(email: "ann@example.com")) {
            try await h.backend.signIn(email: "ann@example.com", password: "quiet-otter-321")
        }
    }

    @Test func parallelWrongTriesNeverCountPastTheLimit() async throws {
        let h = try Harness()
        let code = try await h.signUpForCode("ann@example.com")
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask { _ = try? await h.backend.verifyEmail(email: "ann@example.com", code: wrongCode(than: code)) }
            }
        }
        let attempts = try await h.database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT attempts FROM verification_tokens")
        }
        #expect(attempts == 5)
    }

    @Test func twoParallelRightSubmissionsVerifyOnce() async throws {
        let h = try Harness()
        let code = try await h.signUpForCode("ann@example.com")
        let errors = await withTaskGroup(of: (any Error)?.self) { group in
            for _ in 0..<2 {
                group.addTask { await caughtError { _ = try await h.backend.verifyEmail(email: "ann@example.com", code: code) } }
            }
            return await group.reduce(into: [(any Error)?]()) { $0.append($1) }
        }
        #expect(errors.filter { $0 == nil }.count == 1)
        #expect(errors.compactMap { $0 as? AuthError } == [.codeExpired])
    }

    /// Issue 22, item 3: a code lives only while its account waits; verified any other way (here
    /// straight in the file, as staff or a reset would), the account's live code is spent.
    @Test func verifyingAnotherWaySpendsTheLiveCode() async throws {
        let h = try Harness()
        let code = try await h.signUpForCode("ann@example.com")
        try await h.database.pool.write { db in try db.execute(sql: "UPDATE users SET verified = 1") }
        #expect(
            await caughtError { _ = try await h.backend.verifyEmail(email: "ann@example.com", code: code) } as? AuthError
                == .codeExpired)
    }

    @Test func resendReplacesTheOldCode() async throws {
        let h = try Harness()
        let oldCode = try await h.signUpForCode("ann@example.com")
        h.clock.advance(by: 61)
        try await h.backend.resendVerification(email: "ANN@example.com")
        let newCode = try #require(try await h.latestMail(to: "ann@example.com").code)
        #expect(try await h.mailCount(to: "ann@example.com") == 2)
        if newCode != oldCode {
            await #expect(throws: AuthError.invalidCode) {
                try await h.backend.verifyEmail(email: "ann@example.com", code: oldCode)
            }
        }
        #expect(try await h.backend.verifyEmail(email: "ann@example.com", code: newCode).emailVerified)
    }

    @Test func resendIsSilentForUnknownAndVerifiedAddresses() async throws {
        let h = try Harness()
        let code = try await h.signUpForCode("ann@example.com")
        _ = try await h.backend.verifyEmail(email: "ann@example.com", code: code)
        try await h.backend.resendVerification(email: "ann@example.com")
        try await h.backend.resendVerification(email: "nobody@example.com")
        #expect(try await h.count("mails") == 1)
    }
}
