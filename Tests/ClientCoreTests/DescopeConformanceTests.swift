import AuthCore
import Foundation
import Secrets
import TestScope
import Testing
import TwoFactor
import WebAuthnTestSupport

/// `DescopeBackend` through `AuthClient` against Gatehouse's own Descope-compatible API, where
/// Descope's contract differs from the shared suites' (`BackendKind.verifyingBeforeSignIn`): a
/// sign-up signs in at once and the address is verified later by a mailed code; the profile,
/// administration and the session list need Descope's management key and are refused as such.
@Suite(.serialized, .stopsWhatItStarts) struct DescopeConformanceTests {
    private static let password = "correct horse battery"

    private func fixture() async throws -> GatehouseAPIFixture {
        try await GatehouseAPIFixture.start(.descope)
    }

    /// The newest code (or the link's `t`) mailed to `email`.
    private func mailed(_ fixture: GatehouseAPIFixture, to email: String, link: Bool = false) async throws -> String {
        let mail = try #require(try await fixture.mailbox.mails(to: email, limit: 1).first)
        guard link else { return try #require(mail.code) }
        let url = try #require(mail.link.flatMap(URLComponents.init(string:)))
        return try #require(url.queryItems?.first(where: { $0.name == "t" })?.value)
    }

    @Test func signUpSignsInAtOnceThenVerifyMeRefreshSignOut() async throws {
        let fixture = try await fixture()
        let client = fixture.client()
        let events = EventLog()
        await client.addObserver { event, _ in events.append(event) }
        let email = uniqueEmail("ada")

        let signUp = try await client.signUp(email: email, password: Self.password, name: "Ada Lovelace")
        #expect(signUp.hasSession && !signUp.needsEmailVerification)
        #expect(signUp.user?.emailVerified == false)
        let session = try #require(try await client.getSession())
        #expect(session.refreshable && session.expiresAt.map { $0 > Date() } == true)
        let me = try #require(try await client.getCurrentUser())
        #expect(me.email.lowercased() == email && me.profile.name == "Ada Lovelace" && !me.emailVerified)

        // The address is verified by a mailed sign-in code.
        try await client.resendVerificationEmail(email: email)
        let code = try await mailed(fixture, to: email)
        #expect(
            await authError { try await client.verifyEmail(email: email, code: code == "000000" ? "111111" : "000000") }
                == .invalidCode)
        #expect(try await client.verifyEmail(email: email, code: code).user?.emailVerified == true)
        #expect(try await client.getCurrentUser()?.emailVerified == true)

        // Descope's auth API changes no profile field: refused, and not declared.
        #expect(!client.capabilities.contains(.profile))
        #expect(await authError { try await client.setProfile(["name": "Ada King"]) } == .notSupported(.profile))

        let before = try #require(try await client.getSession())
        let refreshed = try await client.refreshSession()
        #expect(refreshed.user.id == me.id && refreshed.refreshToken == before.refreshToken)
        let (renewedExpiry, earlierExpiry) = (try #require(refreshed.expiresAt), try #require(before.expiresAt))
        #expect(renewedExpiry >= earlierExpiry)

        try await SignInAtOnceChecks.signOutEndsTheSession(client, api: fixture.api, refreshed: refreshed, events: events)
    }

    /// A passkey added to the signed-in account and then signed in with, through `AuthClient`'s
    /// ceremony halves, a software authenticator playing the platform's part.
    @Test func aPasskeyIsAddedThenSignsInWithoutAPassword() async throws {
        let fixture = try await fixture()
        let descope = try #require(fixture.api as? DescopeBackend)
        // WebAuthn takes no IP address as a relying party: the same server by its name.
        let origin = "http://localhost:\(fixture.server.port)"
        let byName = DescopeBackend(
            configuration: .init(baseURL: try #require(URL(string: origin)), projectID: descope.configuration.projectID))
        let client = AuthClient(api: byName, storage: InMemorySessionStorage())
        #expect(client.capabilities.contains(.passkeys))
        var authenticator = try SoftwareAuthenticator()
        authenticator.origin = origin
        let email = uniqueEmail("passkey")
        let me = try #require(try await client.signUp(email: email, password: Self.password).user)

        let add = try await client.passkeyAddStart(origin: origin)
        #expect(add.create)
        try await client.passkeyAddFinish(
            transactionID: add.transactionID, credentialJSON: try authenticator.registrationJSON(challenge: challenge(add)))

        let other = AuthClient(api: byName, storage: InMemorySessionStorage())
        let start = try await other.passkeySignInStart(email: email, origin: origin)
        #expect(!start.create)
        let answer = try authenticator.assertionJSON(challenge: challenge(start), userHandle: me.id.rawValue, signCount: 2)
        let session = try await other.passkeySignInFinish(transactionID: start.transactionID, credentialJSON: answer)
        #expect(session.user.id == me.id && session.refreshable)
        #expect(try await other.getCurrentUser()?.email.lowercased() == email)
        // The same answer again is a replay.
        #expect(
            await authError {
                _ = try await other.passkeySignInFinish(transactionID: start.transactionID, credentialJSON: answer)
            }
                != nil)
    }

    @Test func aBackendWithoutPasskeysSaysSo() async throws {
        let client = AuthClient(
            api: PocketBaseBackend(configuration: .init(baseURL: try #require(URL(string: "http://127.0.0.1:9")))),
            storage: InMemorySessionStorage())
        #expect(!client.capabilities.contains(.passkeys))
        #expect(
            await authError { _ = try await client.passkeySignInStart(email: "a@example.com", origin: "https://example.com") }
                == .notSupported(.passkeys))
    }

    /// The challenge in a ceremony's options (`{"publicKey": {"challenge": …}}`).
    private func challenge(_ start: PasskeyStart) throws -> [UInt8] {
        let options = try JSONSerialization.jsonObject(with: Data(start.optionsJSON.utf8)) as? [String: Any]
        let publicKey = options?["publicKey"] as? [String: Any]
        let text = try #require(publicKey?["challenge"] as? String)
        return try #require(Base64URL.decode(text))
    }

    @Test func wrongPasswordUnknownLoginAndTakenAddressAnswerTheSeamsErrors() async throws {
        try await SignInAtOnceChecks.refusals(try await fixture().client(), password: Self.password)
    }

    @Test func magicLinkSignsUpAndInOnce() async throws {
        let fixture = try await fixture()
        let api = fixture.api
        #expect(api.capabilities.contains(.magicLink))
        let email = uniqueEmail("link")
        try await api.requestMagicLink(email: email, allowSignUp: true, browserBinding: "unused")
        let token = try await mailed(fixture, to: email, link: true)
        let session = try await api.signIn(magicLinkToken: token, browserBinding: nil).requireSession()
        #expect(session.user.email.lowercased() == email && session.user.emailVerified)
        #expect(
            await authError { _ = try await api.signIn(magicLinkToken: token, browserBinding: nil).requireSession() }
                == .invalidCode)

        // Sign-in only: an unknown address gets a mail-less answer, never an account.
        let stranger = uniqueEmail("stranger")
        try await api.requestMagicLink(email: stranger, allowSignUp: false, browserBinding: "unused")
        #expect(try await fixture.mailbox.mails(to: stranger, limit: 1).isEmpty)
    }

    @Test func authenticatorAppThenTheSignInAsksForItsCode() async throws {
        let fixture = try await fixture()
        let api = fixture.api
        let email = uniqueEmail("totp")
        let session = try #require(try await api.signUp(SignUpRequest(email: email, password: Self.password)).session)
        let secret = try await SignInAtOnceChecks.authenticatorTurnedOn(api, session: session)
        let now = Date()

        // The password alone no longer signs in: the challenge names the login id.
        let asked = try await api.signIn(email: email, password: Self.password)
        guard case .secondStep(let challenge) = asked else {
            Issue.record("the password sign-in answered \(String(describing: asked)), not the second step")
            return
        }
        #expect(challenge.id == email)
        #expect(challenge.methods == [.totp])
        #expect(
            await authError { _ = try await api.completeMFA(challengeID: challenge.id, with: .totp(code: "000000")) }
                == .invalidCode)
        #expect(
            await authError { _ = try await api.completeMFA(challengeID: challenge.id, with: .recoveryCode("abcd-efgh")) }
                == .notSupported(.mfa))
        let completed = try await api.completeMFA(
            challengeID: challenge.id, with: .totp(code: try TOTP.code(secret: secret, at: now)))
        #expect(completed.user.email.lowercased() == email)
        #expect(
            await authError { try await api.disableTOTP(password: Self.password, session: completed) } == .notSupported(.totp))
    }

    @Test func passwordChangeChecksTheCurrentOneAndEndsOtherSessions() async throws {
        let fixture = try await fixture()
        let (laptop, phone) = (fixture.client(), fixture.client())
        let email = uniqueEmail("change")
        _ = try await laptop.signUp(email: email, password: Self.password)
        try await phone.signIn(email: email, password: Self.password).requireSession()

        #expect(
            await authError {
                try await laptop.replacePassword(currentPassword: "not it at all", newPassword: "violet tractor lamp 71")
            }
                == .invalidCredentials)
        try await laptop.replacePassword(currentPassword: Self.password, newPassword: "violet tractor lamp 71")
        #expect(try await laptop.getCurrentUser()?.email.lowercased() == email)
        #expect(await authError { _ = try await phone.getCurrentUser() } == .sessionExpired, "the phone is still signed in")
        #expect(
            await authError { try await fixture.client().signIn(email: email, password: Self.password).requireSession() }
                == .invalidCredentials)
        _ = try await fixture.client().signIn(email: email, password: "violet tractor lamp 71").requireSession()
    }

    @Test func whatNeedsTheManagementKeyIsRefusedAsUnsupported() async throws {
        let fixture = try await fixture()
        let client = fixture.client()
        #expect(
            client.capabilities.isDisjoint(with: [.userAdministration, .impersonation, .sessionList, .profile, .passwordReset]))
        _ = try await client.signUp(email: uniqueEmail("plain"), password: Self.password)
        #expect(await authError { _ = try await client.admin.listUsers(UserQuery()) } == .notSupported(.userAdministration))
        #expect(await authError { _ = try await client.listSessions() } == .notSupported(.sessionList))
        #expect(await authError { try await client.signOut(scope: .others) } == .notSupported(.sessionList))
        #expect(try await client.listAuthMethods().password)
    }
}
