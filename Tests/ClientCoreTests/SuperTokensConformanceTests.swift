import AuthCore
import Foundation
import TestScope
import Testing
import TwoFactor

/// `SuperTokensBackend` through `AuthClient` against Gatehouse's own SuperTokens frontend API (the
/// FDI in header mode), where SuperTokens' contract differs from the shared suites'
/// (`BackendKind.verifyingBeforeSignIn`): a sign-up signs in at once, the address is proven by the
/// link mailed to the signed-in person, refresh tokens rotate, and administration needs the core's
/// API key, which a frontend never holds.
@Suite(.serialized, .stopsWhatItStarts) struct SuperTokensConformanceTests {
    private static let password = "correct horse battery"

    private func fixture() async throws -> GatehouseAPIFixture {
        try await GatehouseAPIFixture.start(.superTokens)
    }

    @Test func signUpSignsInAtOnceThenVerifyProfileRefreshSignOut() async throws {
        let fixture = try await fixture()
        let client = fixture.client()
        let events = EventLog()
        await client.addObserver { event, _ in events.append(event) }
        let email = uniqueEmail("ada")

        let signUp = try await client.signUp(email: email, password: Self.password, name: "Ada Lovelace")
        #expect(signUp.hasSession && !signUp.needsEmailVerification)
        let session = try #require(try await client.getSession())
        #expect(session.refreshable && session.expiresAt.map { $0 > Date() } == true)
        let me = try #require(try await client.getCurrentUser())
        #expect(me.email.lowercased() == email && me.profile.name == "Ada Lovelace" && !me.emailVerified)

        // The address is proven by the link the FDI mails to the signed-in person.
        try await client.resendVerificationEmail()
        let token = try await fixture.mailedLinkToken(to: email)
        #expect(await authError { try await client.verifyEmail(email: email, code: "not-the-token") } == .invalidCode)
        try await client.verifyEmail(email: email, code: token)
        // Its first proof ends the sessions the unproven account held: a new sign-in.
        try await client.signIn(email: email, password: Self.password).requireSession()
        #expect(try await client.getCurrentUser()?.emailVerified == true)

        let updated = try await client.setProfile(["bio": "Analyst", "favorite_number": .number(7)])
        #expect(updated.profile.name == "Ada Lovelace" && updated.profile.fields["favorite_number"] == .number(7))
        #expect(try await client.setProfile(["bio": .null]).profile.bio == nil)

        let before = try #require(try await client.getSession())
        let refreshed = try await client.refreshSession()
        #expect(refreshed.user.id == me.id && refreshed.refreshToken != before.refreshToken)
        #expect(try await client.getCurrentUser()?.id == me.id)

        try await SignInAtOnceChecks.signOutEndsTheSession(client, api: fixture.api, refreshed: refreshed, events: events)
    }

    /// A rotated refresh token presented again is theft: the session it belonged to ends.
    @Test func aSpentRefreshTokenPresentedAgainEndsTheSession() async throws {
        let fixture = try await fixture()
        let api = fixture.api
        let first = try #require(
            try await api.signUp(SignUpRequest(email: uniqueEmail("rotate"), password: Self.password)).session)
        let second = try await api.refresh(first)
        #expect(second.refreshToken != first.refreshToken && second.accessToken != first.accessToken)
        #expect(try await api.currentUser(second).id == first.user.id)

        #expect(await authError { _ = try await api.refresh(first) } == .sessionExpired)
        #expect(await authError { _ = try await api.refresh(second) } == .sessionExpired, "the stolen session lives on")
        #expect(await authError { _ = try await api.currentUser(second) } == .sessionExpired)
    }

    @Test func wrongPasswordUnknownAddressTakenAddressAndAShortPasswordAnswerTheSeamsErrors() async throws {
        let fixture = try await fixture()
        try await SignInAtOnceChecks.refusals(fixture.client(), password: Self.password)
        #expect(
            await authError { _ = try await fixture.client().signUp(email: uniqueEmail("short"), password: "short") }.map {
                if case .validation(let errors) = $0 { errors.map(\.field) } else { [] }
            } == ["password"])
    }

    @Test func authenticatorAppThenTheSignInAsksForItsCode() async throws {
        let fixture = try await fixture()
        let api = fixture.api
        let email = uniqueEmail("totp")
        let session = try #require(try await api.signUp(SignUpRequest(email: email, password: Self.password)).session)
        // A wrong first code leaves the authenticator off.
        let pending = try await api.beginTOTPEnrollment(session: session)
        #expect(await authError { _ = try await api.confirmTOTPEnrollment(code: "000000", session: session) } == .invalidCode)
        #expect(try await api.totpStatus(session: session).enabled == false && !pending.secret.isEmpty)
        let secret = try await SignInAtOnceChecks.authenticatorTurnedOn(api, session: session)
        let now = Date()

        // The password alone no longer signs in: the challenge is the first step's token.
        guard case .secondStep(let challenge) = try await api.signIn(email: email, password: Self.password) else {
            Issue.record("the password sign-in did not ask for the second step")
            return
        }
        #expect(challenge.methods == [.totp] && challenge.expiresAt.map { $0 > Date() } == true)
        // That token opens nothing but the step.
        let owing = AuthSession(accessToken: challenge.id, expiresAt: nil, user: session.user)
        #expect(await authError { _ = try await api.currentUser(owing) } != nil)
        #expect(
            await authError { _ = try await api.completeMFA(challengeID: challenge.id, with: .totp(code: "000000")) }
                == .invalidCode)
        #expect(
            await authError { _ = try await api.completeMFA(challengeID: challenge.id, with: .recoveryCode("abcd-efgh")) }
                == .notSupported(.mfa))
        let completed = try await api.completeMFA(
            challengeID: challenge.id, with: .totp(code: try TOTP.code(secret: secret, at: now)))
        #expect(completed.user.email.lowercased() == email && completed.refreshable)
        #expect(try await api.refresh(completed).user.id == completed.user.id)
    }

    @Test func signOutEverywhereEndsEveryDevicesSession() async throws {
        let fixture = try await fixture()
        let (laptop, phone) = (fixture.client(), fixture.client())
        let email = uniqueEmail("everywhere")
        _ = try await laptop.signUp(email: email, password: Self.password)
        try await phone.signIn(email: email, password: Self.password).requireSession()
        #expect(await authError { try await laptop.signOut(scope: .others) } == .notSupported(.sessionList))
        try await laptop.signOut(scope: .all)
        #expect(try await laptop.getSession() == nil)
        #expect(await authError { _ = try await phone.getCurrentUser() } == .sessionExpired, "the phone is still signed in")
    }

    @Test func whatNeedsTheCoresAPIKeyIsRefusedAsUnsupported() async throws {
        let fixture = try await fixture()
        let client = fixture.client()
        #expect(client.capabilities.isDisjoint(with: [.userAdministration, .impersonation, .sessionList, .externalAuths]))
        let user = try #require(try await client.signUp(email: uniqueEmail("plain"), password: Self.password).user)
        #expect(await authError { _ = try await client.admin.listUsers(UserQuery()) } == .notSupported(.userAdministration))
        #expect(await authError { _ = try await client.listExternalAuths(userId: user.id) } == .notSupported(.externalAuths))
        #expect(await authError { try await fixture.api.resendVerificationEmail(email: user.email) } == .sessionExpired)
        let methods = try await client.listAuthMethods()
        #expect(methods.password && methods.emailCode)
    }
}
