import AuthCore
import Foundation
import LocalAuth
import TestScope
import Testing

/// Sign-in with a mailed one-time code, the same assertions against the embedded backend, a real
/// PocketBase and Gatehouse's own PocketBase API (the code read from what each one mailed).
@Suite(.serialized, .stopsWhatItStarts) struct PasswordlessConformanceTests {
    /// The newest sign-in code mailed to `email`, as the fixture's backend mailed it.
    private func mailedSignInCode(_ fixture: Fixture, to email: String) async throws -> String {
        if let local = fixture as? LocalFixture {
            let mail = try #require(try await local.mailbox.mails(to: email, limit: 1).first)
            #expect(mail.subject == "Your Gatehouse sign-in code")
            return try #require(mail.code)
        }
        if let gatehouse = fixture as? GatehouseAPIFixture {
            return try #require(try await gatehouse.mailbox.mails(to: email, limit: 1).first?.code)
        }
        let pocketBase = try #require(fixture as? PocketBaseFixture)
        // PocketBase's own OTP mail: "Your one-time password is: 123456" (MIME boundaries hold digits too).
        return try await pocketBase.server.smtp.waitForMatch(
            to: email, pattern: #"one-time password is:\s*(?:<strong>)?([0-9]{6})(?![0-9])"#)
    }

    /// An account that may sign in: made by the admin seam where the backend has one, else
    /// (InsForge, Descope and SuperTokens, whose APIs create no users from outside) signed up, and verified
    /// with the mailed code where the sign-up asks for it.
    private func verifiedUser(_ fixture: Fixture, email: String) async throws -> User {
        let api = fixture.api
        guard api is InsForgeBackend || api is DescopeBackend || api is SuperTokensBackend else {
            return try await api.admin.createUser(NewUser(email: email, password: "a long password", verified: true))
        }
        let signUp = try await api.signUp(SignUpRequest(email: email, password: "a long password"))
        guard signUp.requireEmailVerification else { return signUp.user }
        let mailed = try await fixture.mailedVerification(to: email)
        return try #require(try await api.verifyEmail(email: email, code: mailed.secret).user)
    }

    @Test(arguments: BackendKind.allCases)
    func mailedCodeSignsInOnce(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let api = fixture.api
            #expect(api.capabilities.contains(.emailOTP))
            let email = uniqueEmail("otp")
            let user = try await verifiedUser(fixture, email: email)

            let otpID = try await api.requestEmailOTP(email: email, allowSignUp: false)
            #expect(!otpID.isEmpty)
            let code = try await mailedSignInCode(fixture, to: email)
            #expect(code.count == 6 && code.allSatisfy(\.isNumber))

            let wrong = code == "000000" ? "111111" : "000000"
            #expect(await authError { _ = try await api.signIn(otpID: otpID, code: wrong).requireSession() } == .invalidCode)
            let session = try await api.signIn(otpID: otpID, code: code).requireSession()
            #expect(session.user.id == user.id)
            #expect(try await api.currentUser(session).email.lowercased() == email)

            let replay = await authError { _ = try await api.signIn(otpID: otpID, code: code).requireSession() }
            #expect(replay == .invalidCode || replay == .codeExpired, "a code works once")
        }
    }

    @Test(arguments: BackendKind.allCases)
    func unknownAddressGetsAnIDThatNeverSignsIn(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let api = fixture.api
            let otpID = try await api.requestEmailOTP(email: uniqueEmail("nobody"), allowSignUp: false)
            #expect(!otpID.isEmpty, "unknown addresses get an id too")
            let guess = await authError { _ = try await api.signIn(otpID: otpID, code: "123456").requireSession() }
            #expect(guess == .invalidCode || guess == .codeExpired)
            #expect(await authError { _ = try await api.signIn(otpID: "no-such-otp-id", code: "123456").requireSession() } != nil)
        }
    }

    @Test(arguments: BackendKind.administrable)
    func magicLinksAreDeclaredAsTheyAre(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let api = fixture.api
            switch kind {
            case .local:
                #expect(api.capabilities.contains(.magicLink))
            case .pocketbase, .gatehousePocketBaseAPI, .gatehouseInsForgeAPI, .gatehouseDescopeAPI, .gatehouseSuperTokensFDI:
                #expect(!api.capabilities.contains(.magicLink))
                #expect(
                    await authError {
                        try await api.requestMagicLink(email: uniqueEmail("link"), allowSignUp: false, browserBinding: "b")
                    } == .notSupported(.magicLink))
            }
        }
    }
}
