import AuthCore
import Foundation
import GRDB
import Testing

@testable import LocalAuth
@testable import Store

/// What is written survives closing and reopening the file, and the file stays sound.
@Suite struct PersistenceTests {
    @Test func accountSurvivesReopeningTheFile() async throws {
        let h = try Harness()
        let code = try await h.signUpForCode("ann@example.com", name: "Ann")
        let user = try await h.backend.verifyEmail(email: "ann@example.com", code: code)

        let reopened = try AppDatabase(path: h.path)
        let backend = try Harness.backend(
            database: reopened, hasher: h.hasher, clock: h.clock,
            configuration: LocalAccounts.Configuration())
        let again = try await backend.signIn(email: "ann@example.com", password: "quiet-otter-321")
        #expect(again == user)
        let mailbox = try Harness.mailbox(database: reopened, clock: h.clock)
        #expect(try await mailbox.mails(to: "ann@example.com", limit: 10).first?.code == code)
    }

    @Test func integrityCheckPassesAfterConcurrentWork() async throws {
        let h = try Harness()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    _ = try? await h.backend.signUp(SignUpRequest(email: "user\(index)@example.com", password: "quiet-otter-321"))
                }
            }
        }
        let check = try await h.database.pool.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        let foreignKeys = try await h.database.pool.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count }
        #expect(check == ["ok"])
        #expect(foreignKeys == 0)
        #expect(try await h.count("users") == 8)
    }
}
