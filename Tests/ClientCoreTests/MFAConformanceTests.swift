import AuthCore
import Foundation
import TestScope
import Testing
import TwoFactor

/// The second sign-in step through the seam on both backends: the embedded store asks for an
/// authenticator code (TOTP, or a recovery code); PocketBase, with MFA on for its collection, asks
/// for a second, different method — a mailed one-time code carrying the `mfaId` — as its API does.
@Suite(.serialized, .stopsWhatItStarts) struct MFAConformanceTests {
    private static let password = "mfa password 1"

    @Test(arguments: [BackendKind.local, .pocketbase])
    func aSignInWithTheSecondStepOnAsksForItAndCompletesWithIt(_ kind: BackendKind) async throws {
        try await withFixture(kind) { fixture in
            let api = fixture.api
            #expect(api.capabilities.contains(.mfa))
            let email = uniqueEmail("mfa")
            _ = try await api.admin.createUser(NewUser(email: email, password: Self.password, verified: true))
            var recoveryCodes: [String] = []
            if let pocketBase = fixture as? PocketBaseFixture {
                let token = try await pocketBase.server.superuserToken()
                _ = try await pocketBase.server.request(
                    "PATCH", "/api/collections/users", token: token,
                    body: ["mfa": ["enabled": true, "duration": 600, "rule": ""]])
            } else {
                let session = try await api.signIn(email: email, password: Self.password).requireSession()
                let enrollment = try await api.beginTOTPEnrollment(session: session)
                let secret = try #require(Base32.decode(enrollment.secret))
                recoveryCodes = try await api.confirmTOTPEnrollment(
                    code: try TOTP.code(secret: secret, at: Date()), session: session)
                #expect(recoveryCodes.count == 10)
            }

            // The password alone no longer signs in: the backend names the pending sign-in.
            guard case .secondStep(let challenge) = try await api.signIn(email: email, password: Self.password) else {
                Issue.record("signed in without the second step")
                return
            }
            #expect(!challenge.id.isEmpty)

            let session: AuthSession
            if let pocketBase = fixture as? PocketBaseFixture {
                #expect(challenge.methods == [.emailOTP])
                let otpID = try await api.requestEmailOTP(email: email, allowSignUp: false)
                let code = try await pocketBase.server.smtp.waitForMatch(
                    to: email, pattern: #"one-time password is:\s*(?:<strong>)?([0-9]{6})(?![0-9])"#)
                #expect(
                    await authError { _ = try await api.completeMFA(challengeID: challenge.id, with: .totp(code: code)) }
                        == .notSupported(.totp))
                session = try await api.completeMFA(challengeID: challenge.id, with: .emailOTP(otpID: otpID, code: code))
            } else {
                #expect(challenge.methods.contains(.totp) && challenge.methods.contains(.recoveryCode))
                #expect(
                    await authError { _ = try await api.completeMFA(challengeID: challenge.id, with: .totp(code: "000000")) }
                        == .invalidCode)
                // A recovery code completes it (the enrolment's code cannot be used twice in its step).
                session = try await api.completeMFA(
                    challengeID: challenge.id, with: .recoveryCode(try #require(recoveryCodes.first)))
            }
            #expect(try await api.currentUser(session).email.lowercased() == email)
        }
    }
}
