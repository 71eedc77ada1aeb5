import AuthCore
import Foundation
import TestScope
import Testing

/// The account's own sessions through `AuthClient` (issue 10, item 8): listed with this one marked,
/// one ended, everyone else signed out, everyone signed out. PocketBase's tokens are stateless, so it
/// declares no `.sessionList` and refuses with `.notSupported` — asserted, never skipped.
@Suite(.serialized, .stopsWhatItStarts) struct SessionListConformanceTests {
    /// A verified account signed in on `count` clients.
    private func signedIn(_ fixture: Fixture, count: Int) async throws -> [AuthClient] {
        let email = uniqueEmail("sessions")
        let first = fixture.client()
        _ = try await first.signUp(email: email, password: "correct horse battery")
        _ = try await first.verifyEmail(email: email, code: try await fixture.mailedVerification(to: email).secret)
        var clients: [AuthClient] = []
        for _ in 0..<count {
            let client = fixture.client()
            try await client.signIn(email: email, password: "correct horse battery").requireSession()
            clients.append(client)
        }
        return clients
    }

    @Test(arguments: BackendKind.verifyingBeforeSignIn)
    func listOneOthersAll(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let clients = try await signedIn(fixture, count: 3)
            let (laptop, phone, tablet) = (clients[0], clients[1], clients[2])
            guard laptop.capabilities.contains(.sessionList) else {
                #expect(kind != .local)
                #expect(await authError { _ = try await laptop.listSessions() } == .notSupported(.sessionList))
                #expect(await authError { try await laptop.signOut(scope: .others) } == .notSupported(.sessionList))
                return
            }
            let listed = try await laptop.listSessions()
            #expect(listed.filter(\.current).count == 1)
            #expect(listed.count >= 3)

            // One: the phone's session, found from the phone's own list.
            let phoneID = try #require(try await phone.listSessions().first(where: \.current)?.id)
            try await laptop.signOut(sessionId: phoneID)
            #expect(await authError { _ = try await phone.getCurrentUser() } == .sessionExpired, "the phone is still signed in")
            #expect(try await tablet.getCurrentUser() != nil)
            #expect(await authError { try await laptop.signOut(sessionId: "999999999") } != nil)

            // Everyone else: the tablet goes, the laptop stays.
            try await laptop.signOut(scope: .others)
            #expect(await authError { _ = try await tablet.getCurrentUser() } == .sessionExpired)
            #expect(try await laptop.getCurrentUser() != nil)
            #expect(try await laptop.listSessions().count == 1)

            // Everyone: the laptop too.
            let email = try #require(try await laptop.getCurrentUser()).email
            let again = fixture.client()
            try await again.signIn(email: email, password: "correct horse battery").requireSession()
            try await laptop.signOut(scope: .all)
            #expect(try await laptop.getSession() == nil)
            #expect(await authError { _ = try await again.getCurrentUser() } == .sessionExpired)
        }
    }
}
