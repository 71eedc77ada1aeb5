import AuthCore
import Foundation
import Testing
import TwoFactor

@testable import Accounts

/// The second step is a value every sign-in owner answers: a right first step on an account with
/// an authenticator owes it (never a session), and `SecondStepSignIn` answers it with a session or
/// a refusal naming why.
@Suite struct SecondStepValueTests {
    @Test func aRightPasswordOnAnAccountWithAnAuthenticatorOwesTheSecondStepNotASession() async throws {
        let h = try AccountsHarness()
        try await h.account("ann@example.com")
        let secret = try await h.authenticator(for: "ann@example.com")
        let signIn = PasswordSignIn(env: h.accounts, via: nil)

        guard
            case .secondStep(let challenge) = try await signIn.attempt(
                email: "ann@example.com", password: AccountsHarness.password, request: try h.request())
        else { throw TestFailure("the password alone signed in") }
        #expect(challenge.methods == [.totp, .recoveryCode])

        let steps = SecondStepSignIn(env: h.accounts, via: nil)
        let wrong = try await steps.attempt(challengeID: challenge.id, factor: .totp(code: "000000"), request: try h.request())
        #expect(wrong == .refused(.wrongCode))
        let right = try await steps.attempt(
            challengeID: challenge.id, factor: .totp(code: try TOTP.code(secret: secret, at: h.now)),
            request: try h.request())
        #expect(right.session?.user.email == "ann@example.com")
        let again = try await steps.attempt(
            challengeID: challenge.id, factor: .totp(code: try TOTP.code(secret: secret, at: h.now)),
            request: try h.request())
        #expect(again == .refused(.expired), "a completed challenge is spent")
    }

    @Test func aWrongPasswordAndAnUnknownAddressAreRefusedAlike() async throws {
        let h = try AccountsHarness()
        try await h.account("ann@example.com")
        let signIn = PasswordSignIn(env: h.accounts, via: nil)
        let wrong = try await signIn.attempt(email: "ann@example.com", password: "not her password", request: try h.request())
        let unknown = try await signIn.attempt(
            email: "nobody@example.com", password: "not her password", request: try h.request())
        #expect(wrong == .refused(.invalidCredentials))
        #expect(unknown == .refused(.invalidCredentials))
        let right = try await signIn.attempt(
            email: "ann@example.com", password: AccountsHarness.password, request: try h.request())
        #expect(right.session?.user.email == "ann@example.com")
    }

    @Test func aMailedCodeWithNoRequestBehindItIsAWrongCode() async throws {
        let h = try AccountsHarness()
        let result = try await EmailCodeSignIn(env: h.accounts, via: nil).attempt(
            otpID: nil, code: "123456", email: "ann@example.com", request: try h.request())
        #expect(result == .refused(.wrongCode))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
