import AuthCore
import Foundation
import HTTPTestClient
import Store
import TestScope
import Testing

/// Staff may delete any of an account's passkeys (a lost device), the last one too; the console's
/// user page says first when a passkey is the account's only way in (no password, no provider).
@Suite(.stopsWhatItStarts) struct ConsolePasskeyWarningTests {
    private func account(_ gatehouse: TestGatehouse, _ id: String, password: Bool) async throws -> UserID {
        let now = gatehouse.clock.now
        _ = try await gatehouse.database.insertUser(
            UserRecord(
                id: UserID(id), email: "\(id)@example.com", passwordHash: password ? "x" : nil, verified: true,
                profile: Profile(), createdAt: now, updatedAt: now),
            verificationToken: nil)
        _ = try await gatehouse.database.addPasskey(
            NewPasskey(
                credentialID: Array(id.utf8), owner: .user(UserID(id)), publicKey: [0xA5, 1, 2], signCount: 0,
                transports: ["internal"], name: "Phone", backupEligible: true, backedUp: true),
            at: now)
        return UserID(id)
    }

    @Test func theUserPageSaysWhenAPasskeyIsTheOnlyWayIn() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let staff = try await gatehouse.staffBrowser()
        let only = try await account(gatehouse, "passkeyonly", password: false)
        let both = try await account(gatehouse, "withpassword", password: true)

        let onlyPage = try await staff.get("/_/users/\(only.rawValue)")
        #expect(onlyPage.text.contains("data-only-way-in"))
        #expect(onlyPage.text.contains("Delete the passkey Phone? It is the user"), "the confirmation warns too")
        let bothPage = try await staff.get("/_/users/\(both.rawValue)")
        #expect(bothPage.text.contains("data-passkey") && !bothPage.text.contains("data-only-way-in"))
        #expect(bothPage.text.contains("The user can no longer sign in with it."))
        await gatehouse.stop()
    }
}
