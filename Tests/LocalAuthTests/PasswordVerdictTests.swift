import AuthCore
import Testing

@testable import LocalAuth

/// One password, one verdict for one account: sign-up, a change and a reset all judge it against
/// the account's address and name (the reset used to judge it against nothing, so a password made
/// of the account's name was refused on sign-up and accepted on reset).
@Suite struct PasswordVerdictTests {
    static let name = "Quillon Zebrafinch"
    /// Strong enough for an account with another name; only the name gives it away.
    static let namedPassword = "QuillonZebrafinch"

    @Test func aPasswordMadeOfTheNameIsRefusedOnSignUpChangeAndReset() async throws {
        let h = try Harness(.init(verification: .none))
        // The same password for an account named otherwise: accepted, so only the name can refuse it.
        _ = try await h.backend.signUp(SignUpRequest(email: "other@example.com", password: Self.namedPassword, name: "Ann"))

        await #expect(throws: AuthError.self) {
            try await h.backend.signUp(SignUpRequest(email: "q@example.com", password: Self.namedPassword, name: Self.name))
        }
        let user = try await h.backend.signUp(
            SignUpRequest(email: "q@example.com", password: "quiet-otter-321", name: Self.name)
        ).user

        await #expect(throws: AuthError.self) {
            try await h.backend.changePassword(
                userID: user.id, currentPassword: "quiet-otter-321", newPassword: Self.namedPassword, keeping: 0,
                leavingBrowserSessions: false)
        }

        let token = try #require(try await h.backend.passwordResetToken(for: user.id))
        await #expect(throws: AuthError.self) { try await h.backend.resetPassword(token: token, newPassword: Self.namedPassword) }
        // The refusal spent nothing: the token still sets an acceptable password.
        #expect(try await h.backend.resetPassword(token: token, newPassword: "staple-battery-horse-42").id == user.id)
    }
}
