import AuthCore
import Foundation
import TestScope
import Testing

/// Password reset and change through the seam, the same assertions against the embedded backend and
/// a real PocketBase. Where they differ by design (codes) the test asks `verificationMode`.
// Serialized: each case starts its own PocketBase.
@Suite(.serialized, .stopsWhatItStarts) struct PasswordConformanceTests {
    /// A verified account with `password`.
    private func verifiedAccount(_ fixture: Fixture, _ email: String, password: String) async throws {
        _ = try await fixture.api.signUp(SignUpRequest(email: email, password: password, name: nil))
        _ = try await fixture.api.verifyEmail(email: email, code: try await fixture.mailedVerification(to: email).secret)
    }

    /// What `resetPassword` refuses with (nil when it succeeds).
    private func resetError(_ api: any AuthAPI, token: String, password: String) async -> AuthError? {
        do {
            _ = try await api.resetPassword(token: token, newPassword: password)
            return nil
        } catch let error as AuthError {
            return error
        } catch {
            Issue.record("expected an AuthError, got \(error)")
            return nil
        }
    }

    @Test(arguments: BackendKind.administrable)
    func resetWithTheMailedTokenEndsEverySessionAndWorksOnce(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let api = fixture.api
            #expect(api.capabilities.contains(.passwordReset))
            let email = uniqueEmail("reset")
            try await verifiedAccount(fixture, email, password: "old-password-1")
            let before = try await api.signIn(email: email, password: "old-password-1").requireSession()

            // Unknown addresses are answered alike (no error).
            try await api.requestPasswordReset(email: uniqueEmail("nobody"))
            try await api.requestPasswordReset(email: email)
            let token = try await fixture.mailedPasswordResetToken(to: email)

            // The rules apply before anything is spent.
            #expect(await resetError(api, token: token, password: "short").isValidation)
            let user = try await api.resetPassword(token: token, newPassword: "new-password-2")
            #expect(user.email.lowercased() == email)
            #expect(user.id == before.user.id)

            #expect(await authError { _ = try await api.currentUser(before) } == .sessionExpired)
            #expect(
                await authError { _ = try await api.signIn(email: email, password: "old-password-1").requireSession() }
                    == .invalidCredentials)
            let after = try await api.signIn(email: email, password: "new-password-2").requireSession()
            #expect(after.user.id == before.user.id)

            let reused = await resetError(api, token: token, password: "third-password-3")
            #expect([AuthError.invalidCode, .codeExpired].contains(reused), "\(String(describing: reused))")
            #expect(await resetError(api, token: "not-a-token", password: "third-password-3") == .invalidCode)
            _ = try await api.signIn(email: email, password: "new-password-2").requireSession()

            // Codes only where the backend mails codes.
            if api.verificationMode == .code {
                try await api.requestPasswordReset(email: email)
                let code = try await fixture.mailedVerification(to: email).secret
                let traded = try await api.exchangePasswordResetCode(email: email, code: code)
                _ = try await api.resetPassword(token: traded, newPassword: "by-code-password-4")
                _ = try await api.signIn(email: email, password: "by-code-password-4").requireSession()
            } else {
                #expect(
                    await authError { _ = try await api.exchangePasswordResetCode(email: email, code: "123456") }
                        == .notSupported(.passwordReset))
            }
        }
    }

    @Test(arguments: BackendKind.administrable)
    func changeChecksTheCurrentPasswordKeepsThisSessionAndEndsTheOthers(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let api = fixture.api
            #expect(api.capabilities.contains(.passwordChange))
            let email = uniqueEmail("change")
            try await verifiedAccount(fixture, email, password: "old-password-1")
            let here = try await api.signIn(email: email, password: "old-password-1").requireSession()
            let elsewhere = try await api.signIn(email: email, password: "old-password-1").requireSession()

            #expect(
                await authError {
                    _ = try await api.changePassword(
                        currentPassword: "not-it-at-all", newPassword: "new-password-2", session: here)
                } == .invalidCredentials)
            #expect(
                await authError {
                    _ = try await api.changePassword(currentPassword: "old-password-1", newPassword: "short", session: here)
                }.isValidation)
            _ = try await api.currentUser(elsewhere)  // refusals change nothing

            let goOn = try await api.changePassword(
                currentPassword: "old-password-1", newPassword: "new-password-2", session: here
            ).requireSession()
            #expect(try await api.currentUser(goOn).id == here.user.id)
            #expect(await authError { _ = try await api.currentUser(elsewhere) } == .sessionExpired)
            _ = try await api.refresh(goOn)
            #expect(
                await authError { _ = try await api.signIn(email: email, password: "old-password-1").requireSession() }
                    == .invalidCredentials)
            _ = try await api.signIn(email: email, password: "new-password-2").requireSession()
        }
    }

    @Test(arguments: BackendKind.administrable)
    func anImpersonationSessionCannotChangeThePassword(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let api = fixture.api
            let email = uniqueEmail("held")
            try await verifiedAccount(fixture, email, password: "old-password-1")
            let user = try await api.signIn(email: email, password: "old-password-1").requireSession().user
            let impersonation = try await api.admin.impersonate(user.id, duration: 300)
            let refused = await authError {
                _ = try await api.changePassword(
                    currentPassword: "old-password-1", newPassword: "new-password-2", session: impersonation)
            }
            #expect(
                refused == .server(status: 403, code: "forbidden", message: "The password can't be changed while impersonating."))
            _ = try await api.signIn(email: email, password: "old-password-1").requireSession()
        }
    }
}

extension Fixture {
    /// The token in the newest reset link mailed to `email`, as this backend mails it.
    func mailedPasswordResetToken(to email: String) async throws -> String {
        switch self {
        case let mailbox as any MailboxFixture:
            return try await mailbox.mailedLinkToken(to: email)
        case let pocketBase as PocketBaseFixture:
            return try await pocketBase.server.smtp.waitForMatch(
                to: email, pattern: #"reset-password\?token=([A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+)"#)
        default:
            throw ConformanceFailure("no reset mail reader for \(type(of: self))")
        }
    }
}

struct ConformanceFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Optional where Wrapped == AuthError {
    var isValidation: Bool {
        if case .validation? = self { return true }
        return false
    }
}
