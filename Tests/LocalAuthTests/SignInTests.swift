import AuthCore
import Foundation
import GRDB
import Testing

@testable import LocalAuth
@testable import Store

/// Password sign-in: one answer for every failure, and upgrades of imported hashes.
@Suite struct SignInTests {
    func verifiedAccount(_ h: Harness, email: String = "ann@example.com") async throws -> User {
        let code = try await h.signUpForCode(email)
        return try await h.backend.verifyEmail(email: email, code: code)
    }

    @Test func unknownEmailFailsLikeAWrongPassword() async throws {
        let h = try Harness()
        _ = try await verifiedAccount(h)
        let wrong = await caughtError { _ = try await h.backend.signIn(email: "ann@example.com", password: "wrong-password") }
        let unknown = await caughtError {
            _ = try await h.backend.signIn(email: "nobody@example.com", password: "wrong-password")
        }
        #expect(wrong as? AuthError == .invalidCredentials)
        #expect(unknown as? AuthError == .invalidCredentials)
    }

    /// A disabled account is named only to whoever knows its password: a wrong one reads like any
    /// wrong password.
    @Test func aDisabledAccountIsNamedOnlyAfterItsRightPassword() async throws {
        let h = try Harness()
        _ = try await verifiedAccount(h)
        try await h.database.pool.write { db in try db.execute(sql: "UPDATE users SET disabled = 1") }
        await #expect(throws: AuthError.invalidCredentials) {
            try await h.backend.signIn(email: "ann@example.com", password: "wrong-password")
        }
        await #expect(throws: AccountDisabled()) {
            try await h.backend.signIn(email: "ann@example.com", password: "quiet-otter-321")
        }
    }

    @Test func unverifiedAccountWithRightPasswordIsTold() async throws {
        let h = try Harness()
        _ = try await h.signUpForCode("Ann@example.com")
        await #expect(throws: AuthError.emailNotVerified(email: "Ann@example.com")) {
            try await h.backend.signIn(email: "ann@example.com", password: "quiet-otter-321")
        }
        await #expect(throws: AuthError.invalidCredentials) {
            try await h.backend.signIn(email: "ann@example.com", password: "password124")
        }
    }

    @Test func importedBcryptUserSignsInAndIsRehashed() async throws {
        let h = try Harness()
        let bcrypt = "$2a$10$WdGwdYU9tOGMj5TZlNvERufqs2u9WZxQGHmaMaIetvKTbMmfjYQxe"  // "correct horse battery"
        let imported = UserRecord(
            id: UserID("imported0000001"), email: "pb@example.com", passwordHash: bcrypt,
            verified: true, profile: Profile(), createdAt: h.clock.now, updatedAt: h.clock.now)
        _ = try await h.database.insertUser(imported, verificationToken: nil)
        let user = try await h.backend.signIn(email: "pb@example.com", password: "correct horse battery")
        #expect(user.id == imported.id)
        let stored = try #require(try await h.database.user(id: imported.id)?.passwordHash)
        #expect(stored.hasPrefix("$argon2id$"))
        #expect(!h.hasher.needsRehash(stored))
        #expect(try await h.backend.signIn(email: "pb@example.com", password: "correct horse battery").id == imported.id)
    }

    @Test func accountWithoutPasswordCannotSignInWithOne() async throws {
        let h = try Harness()
        let oauthOnly = UserRecord(
            id: UserID("oauthonly000001"), email: "o@example.com", passwordHash: nil,
            verified: true, profile: Profile(), createdAt: h.clock.now, updatedAt: h.clock.now)
        _ = try await h.database.insertUser(oauthOnly, verificationToken: nil)
        await #expect(throws: AuthError.invalidCredentials) {
            try await h.backend.signIn(email: "o@example.com", password: "anything-at-all")
        }
    }

    @Test func unknownUserIDIsUserNotFound() async throws {
        let h = try Harness()
        await #expect(throws: AuthError.userNotFound) { try await h.backend.user(UserID("nosuchuser0000")) }
    }
}
