import AuthCore
import Foundation
import Secrets
import TestScope
import Testing
import WebAuthnTestSupport

/// Issue 42: passkey assertions an authenticator would never make, sent to the real server
/// through the Descope API's ceremony (`AuthClient`'s passkey halves) and refused there.
@Suite(.serialized, .stopsWhatItStarts) struct PasskeyAssertionAttackTests {
    /// A client on the server by name (WebAuthn takes no IP address as a relying party), an
    /// authenticator whose passkey that client's new account holds, and the account's id.
    private func enrolled(_ fixture: GatehouseAPIFixture) async throws -> (AuthClient, SoftwareAuthenticator, String) {
        let descope = try #require(fixture.api as? DescopeBackend)
        let origin = "http://localhost:\(fixture.server.port)"
        let byName = DescopeBackend(
            configuration: .init(baseURL: try #require(URL(string: origin)), projectID: descope.configuration.projectID))
        let client = AuthClient(api: byName, storage: InMemorySessionStorage())
        var authenticator = try SoftwareAuthenticator()
        authenticator.origin = origin
        let me = try #require(try await client.signUp(email: uniqueEmail("counter"), password: "correct horse battery").user)
        let add = try await client.passkeyAddStart(origin: origin)
        try await client.passkeyAddFinish(
            transactionID: add.transactionID, credentialJSON: try authenticator.registrationJSON(challenge: challenge(add)))
        return (client, authenticator, me.id.rawValue)
    }

    /// Signs in with the passkey, its counter at `signCount`; the seam's error when refused.
    private func signIn(
        _ client: AuthClient, _ authenticator: SoftwareAuthenticator, _ userID: String, signCount: UInt32,
        origin: String
    ) async -> AuthError? {
        await authError {
            let email = try #require(try await client.getCurrentUser()?.email)
            let start = try await client.passkeySignInStart(email: email, origin: origin)
            let answer = try authenticator.assertionJSON(challenge: challenge(start), userHandle: userID, signCount: signCount)
            _ = try await client.passkeySignInFinish(transactionID: start.transactionID, credentialJSON: answer)
        }
    }

    /// A counter that was moving and then reads 0 is a cloned authenticator that keeps none of its
    /// own: refused like one that went backwards (0 is only "no counter" from the start).
    @Test func aCounterThatDropsToZeroIsRefused() async throws {
        let fixture = try await GatehouseAPIFixture.start(.descope)
        let (client, authenticator, userID) = try await enrolled(fixture)
        let origin = "http://localhost:\(fixture.server.port)"
        #expect(await signIn(client, authenticator, userID, signCount: 2, origin: origin) == nil)
        #expect(await signIn(client, authenticator, userID, signCount: 0, origin: origin) != nil, "0 after 2 was accepted")
        #expect(await signIn(client, authenticator, userID, signCount: 3, origin: origin) == nil, "the real one goes on")
    }

    /// The challenge in a ceremony's options (`{"publicKey": {"challenge": …}}`).
    private func challenge(_ start: PasskeyStart) throws -> [UInt8] {
        let options = try JSONSerialization.jsonObject(with: Data(start.optionsJSON.utf8)) as? [String: Any]
        let publicKey = options?["publicKey"] as? [String: Any]
        let text = try #require(publicKey?["challenge"] as? String)
        return try #require(Base64URL.decode(text))
    }
}
