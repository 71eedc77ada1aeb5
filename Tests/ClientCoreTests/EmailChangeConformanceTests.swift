import AuthCore
import Foundation
import TestScope
import Testing

/// Email change through the seam, the same assertions on the embedded backend and a real
/// PocketBase: request with the password, the token read from the mail the backend sent, confirm.
@Suite(.serialized, .stopsWhatItStarts) struct EmailChangeConformanceTests {
    private static let password = "change password 1"

    /// The token of the newest email-change link mailed to `email`, as that backend mails it.
    private func mailedToken(_ fixture: Fixture, to email: String) async throws -> String {
        if let mailbox = fixture as? any MailboxFixture {
            return try await mailbox.mailedLinkToken(to: email)
        }
        let pocketBase = try #require(fixture as? PocketBaseFixture)
        return try await pocketBase.server.smtp.waitForMatch(
            to: email, pattern: #"confirm-email\?token=([A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+)"#)
    }

    /// Whether anything mailed to `email` carries a confirmation link.
    private func linkMailed(_ fixture: Fixture, to email: String) async throws -> Bool {
        if let mailed = fixture as? any MailboxFixture {
            return try await mailed.mailbox.mails(to: email, limit: 10).contains { $0.link != nil }
        }
        let pocketBase = try #require(fixture as? PocketBaseFixture)
        return pocketBase.server.smtp.received.contains { message in
            message.recipients.contains { $0.lowercased() == email } && message.decodedText.contains("confirm-email?token=")
        }
    }

    @Test(arguments: BackendKind.administrable)
    func requestThenConfirmMovesTheAccountAndEndsItsOtherSessions(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let api = fixture.api
            #expect(api.capabilities.contains(.emailChange))
            let old = uniqueEmail("mover")
            let new = uniqueEmail("moved")
            let taken = uniqueEmail("taken")
            for email in [old, taken] {
                _ = try await api.admin.createUser(NewUser(email: email, password: Self.password, verified: true))
            }
            let session = try await api.signIn(email: old, password: Self.password).requireSession()
            let elsewhere = try await api.signIn(email: old, password: Self.password).requireSession()

            #expect(
                await authError {
                    try await api.requestEmailChange(newEmail: new, password: "wrong password 1", session: session)
                } == .invalidCredentials)
            #expect(
                await authError { try await api.requestEmailChange(newEmail: "nope", password: Self.password, session: session) }
                    == .validation([FieldError(field: "email", message: "Enter a valid email address.")]))
            // Taken in another letter case: the same silent answer as a free address, and no link.
            try await api.requestEmailChange(newEmail: taken.uppercased(), password: Self.password, session: session)
            try await api.requestEmailChange(newEmail: new, password: Self.password, session: session)
            let token = try await mailedToken(fixture, to: new)
            #expect(try await linkMailed(fixture, to: taken) == false)
            #expect(try await api.currentUser(session).email.lowercased() == old, "nothing changes before confirmation")

            let password = api.confirmsEmailChangeWithPassword ? Self.password : nil
            if api.confirmsEmailChangeWithPassword {
                #expect(
                    await authError { _ = try await api.confirmEmailChange(token: token, password: nil, keeping: session) }
                        == .validation([FieldError(field: "password", message: "Enter your password to confirm.")]))
            }
            let confirmation = try await api.confirmEmailChange(token: token, password: password, keeping: session)
            #expect(confirmation.user.email.lowercased() == new)
            #expect(confirmation.user.emailVerified)
            let kept = try #require(confirmation.session)
            #expect(try await api.currentUser(kept).email.lowercased() == new)
            #expect(await authError { _ = try await api.currentUser(elsewhere) } == .sessionExpired)

            let reused = await authError { _ = try await api.confirmEmailChange(token: token, password: password, keeping: nil) }
            #expect(reused == .invalidCode || reused == .codeExpired)
            #expect(
                await authError { _ = try await api.signIn(email: old, password: Self.password).requireSession() }
                    == .invalidCredentials)
            #expect(try await api.signIn(email: new, password: Self.password).requireSession().user.email.lowercased() == new)
            #expect(try await api.admin.listUsers(UserQuery(search: taken)).users.map { $0.email.lowercased() } == [taken])
        }
    }
}
