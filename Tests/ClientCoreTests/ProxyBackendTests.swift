import AuthCore
import Foundation
import Testing

/// The pages' adapter over any `AuthAPI`, here over the embedded one with short-lived tokens.
@Suite struct ProxyBackendTests {
    @Test func signInHandsBackACredentialThatActsAsTheUserAndRenews() async throws {
        let fixture = try await LocalFixture(accessTokenLifetime: 120)
        let email = uniqueEmail("proxy")
        _ = try await fixture.api.admin.createUser(NewUser(email: email, password: "proxy password", verified: true))
        let proxy = ProxyBackend(api: fixture.api, renewalMargin: 60)

        let signIn = try await proxy.signInForSession(email: email, password: "proxy password")
        let credential = try #require(signIn.credential)
        #expect(!credential.value.isEmpty)
        #expect(try await proxy.user(signIn.user.id, credential: credential).email == email)
        let updated = try await proxy.setProfile(userID: signIn.user.id, patch: ["bio": "via proxy"], credential: credential)
        #expect(updated.profile.bio == "via proxy")
        // 120 s left is more than the 60 s margin: nothing to renew yet.
        #expect(try await proxy.renewedCredential(credential) == nil)

        let nearExpiry = ProxyBackend(api: fixture.api, renewalMargin: 3600)
        let renewed = try #require(try await nearExpiry.renewedCredential(credential))
        #expect(renewed != credential)
        #expect(try await proxy.user(signIn.user.id, credential: renewed).email == email)
        // The embedded backend rotated the tokens: the old credential no longer works.
        await #expect(throws: AuthError.sessionExpired) { try await proxy.user(signIn.user.id, credential: credential) }
    }

    @Test func codeVerificationIsOnlyOfferedWhenTheBackendHasIt() async throws {
        let fixture = try await LocalFixture()
        #expect(ProxyBackend(api: fixture.api).verificationMode == .code)
    }
}
