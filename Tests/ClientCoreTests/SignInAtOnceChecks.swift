import AuthCore
import Foundation
import Testing
import TwoFactor

/// Checks shared by the backends whose sign-up signs in at once and which keep no recovery codes
/// (`DescopeConformanceTests`, `SuperTokensConformanceTests`).
enum SignInAtOnceChecks {
    /// A wrong password and an unknown address are `.invalidCredentials`, a taken address
    /// `.emailExists`; the right password still signs in.
    static func refusals(_ client: AuthClient, password: String) async throws {
        let email = uniqueEmail("grace")
        _ = try await client.signUp(email: email, password: password)
        #expect(
            await authError { try await client.signIn(email: email, password: "wrong password").requireSession() }
                == .invalidCredentials)
        #expect(
            await authError { try await client.signIn(email: uniqueEmail("nobody"), password: password).requireSession() }
                == .invalidCredentials)
        #expect(await authError { _ = try await client.signUp(email: email, password: "yellow kite harbor 58") } == .emailExists)
        #expect(try await client.signIn(email: email, password: password).requireSession().user.email.lowercased() == email)
    }

    /// Turns the session's authenticator app on with a code from the step before (the window takes
    /// it) and returns the key; no recovery codes come back.
    static func authenticatorTurnedOn(_ api: any AuthAPI, session: AuthSession) async throws -> [UInt8] {
        #expect(try await api.totpStatus(session: session).enabled == false)
        let enrollment = try await api.beginTOTPEnrollment(session: session)
        #expect(enrollment.provisioningURL.hasPrefix("otpauth://totp/"))
        let secret = try #require(Base32.decode(enrollment.secret))
        let code = try TOTP.code(secret: secret, at: Date().addingTimeInterval(-30))
        #expect(try await api.confirmTOTPEnrollment(code: code, session: session) == [], "no recovery codes")
        #expect(try await api.totpStatus(session: session) == TOTPStatus(enabled: true, recoveryCodesLeft: 0))
        return secret
    }

    /// Signs `client` out: it holds no session, the last one (`refreshed`) opens and renews nothing,
    /// and the client's events ended with the sign-out after a sign-in and a refresh.
    static func signOutEndsTheSession(
        _ client: AuthClient, api: any AuthAPI, refreshed: AuthSession, events: EventLog
    ) async throws {
        try await client.signOut()
        #expect(try await client.getSession() == nil)
        #expect(await authError { _ = try await api.currentUser(refreshed) } == .sessionExpired)
        #expect(await authError { _ = try await api.refresh(refreshed) } == .sessionExpired)
        #expect(events.all.contains(.signedIn) && events.all.contains(.tokenRefreshed) && events.all.last == .signedOut)
    }
}
