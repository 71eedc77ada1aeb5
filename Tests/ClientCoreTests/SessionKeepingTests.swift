import AuthCore
import Foundation
import TestScope
import Testing

/// The client's session machinery and the embedded backend's refresh-token rotation.
@Suite(.stopsWhatItStarts) struct SessionKeepingTests {
    private func signedInClient(
        _ fixture: LocalFixture, storage: any SessionStorage = InMemorySessionStorage(),
        refreshMargin: TimeInterval = 60
    ) async throws -> (AuthClient, String) {
        let email = uniqueEmail("session")
        _ = try await fixture.api.admin.createUser(NewUser(email: email, password: "session passphrase 7", verified: true))
        let client = AuthClient(api: fixture.api, storage: storage, refreshMargin: refreshMargin)
        try await client.signIn(email: email, password: "session passphrase 7").requireSession()
        return (client, email)
    }

    @Test func concurrentCallersShareOneRefresh() async throws {
        let fixture = try await LocalFixture()
        let (client, _) = try await signedInClient(fixture)
        let events = EventLog()
        await client.addObserver { event, _ in events.append(event) }

        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try await client.refreshSession().accessToken } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        // Eight separate rotations would have tripped reuse detection; one shared refresh did not.
        #expect(tokens.count <= 2)
        #expect(try await client.getCurrentUser() != nil)
        #expect(events.all.filter { $0 == .tokenRefreshed }.count == tokens.count)
    }

    @Test func refreshesShortlyBeforeExpiry() async throws {
        let fixture = try await LocalFixture(accessTokenLifetime: 30)
        let (client, _) = try await signedInClient(fixture, refreshMargin: 60)
        let events = EventLog()
        await client.addObserver { event, _ in events.append(event) }
        let first = try #require(try await client.getSession())
        let second = try #require(try await client.getSession())
        #expect(first.accessToken != second.accessToken)
        #expect(events.all.filter { $0 == .tokenRefreshed }.count == 2)
        #expect(try await client.getCurrentUser() != nil)
    }

    @Test func reusingARotatedRefreshTokenRevokesTheFamily() async throws {
        let fixture = try await LocalFixture()
        let email = uniqueEmail("reuse")
        _ = try await fixture.api.admin.createUser(NewUser(email: email, password: "reuse passphrase 7", verified: true))
        let original = try await fixture.api.signIn(email: email, password: "reuse passphrase 7").requireSession()
        let rotated = try await fixture.api.refresh(original)
        #expect(rotated.refreshToken != original.refreshToken)
        #expect(try await fixture.api.currentUser(rotated).email == email)

        // The old refresh token comes back (stolen copy): refused, and the live session dies with it.
        #expect(await authError { _ = try await fixture.api.refresh(original) } == .sessionExpired)
        #expect(await authError { _ = try await fixture.api.currentUser(rotated) } == .sessionExpired)
        #expect(await authError { _ = try await fixture.api.refresh(rotated) } == .sessionExpired)
        // The old access token stopped working at rotation.
        #expect(await authError { _ = try await fixture.api.currentUser(original) } == .sessionExpired)
    }

    @Test func fileStorageKeepsTheSessionAcrossClients() async throws {
        let fixture = try await LocalFixture()
        let path = fixture.directory.appendingPathComponent("session.json").path
        let (client, email) = try await signedInClient(fixture, storage: FileSessionStorage(path: path))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains(email))

        let relaunched = AuthClient(api: fixture.api, storage: FileSessionStorage(path: path))
        #expect(try await relaunched.getCurrentUser()?.email == email)
        try await relaunched.signOut()
        #expect(!FileManager.default.fileExists(atPath: path))
        // Signing out revoked the session on the backend too.
        #expect(await authError { _ = try await client.setProfile(["bio": "x"]) } == .sessionExpired)
    }
}
