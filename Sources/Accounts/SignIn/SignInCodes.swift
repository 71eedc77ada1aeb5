import AuthCore
import Foundation
import HTTPServer

/// Mailed sign-in codes named by address rather than by the request's id (InsForge's `send-otp`,
/// then `sessions` with `method: "otp"`): the request and the check are `MailRequests` and
/// `EmailCodeSignIn`, as on the code page, and the newest request's id per address is kept in Store
/// under the address's keyed hash. An address without one — never asked, unknown, expired — is
/// answered like a wrong code.
public struct SignInCodes: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("insforge-api").
    let via: String?

    public init(env: Accounts, via: String?) { (self.env, self.via) = (env, via) }

    /// How long a request's id is kept; the backend's own code lifetime (shorter) still applies.
    static let requestLifetime: TimeInterval = 15 * 60

    /// Mails a code to `email` (`MailRequests.signInCode`, an account it creates getting
    /// `signUpProfile`) and remembers the request.
    public func request(
        email: String, allowSignUp: Bool, signUpProfile: Profile? = nil, request: Request
    ) async throws -> MailRequests.Outcome {
        switch try await MailRequests(env: env, via: via).signInCode(
            email: email, allowSignUp: allowSignUp, signUpProfile: signUpProfile, request: request)
        {
        case .held(let refusal):
            return .held(refusal)
        case .sent(let otpID):
            try await remember(otpID: otpID, for: email)
            return .sent
        }
    }

    /// Keeps `otpID` as the address's newest request, which `check` reads.
    func remember(otpID: String, for email: String) async throws {
        let now = env.clock()
        try await env.database.rememberOTPRequest(
            emailHash: addressHash(email), otpID: otpID, expiresAt: now.addingTimeInterval(Self.requestLifetime), now: now)
    }

    /// Checks `code` against the address's newest request (`EmailCodeSignIn`). A `name` goes on a
    /// signed-in account that has none yet (an account the code just made); one already there stays.
    public func check(email: String, code: String, name: String?, request: Request) async throws -> SignInResult {
        let otpID = try await env.database.otpRequest(emailHash: addressHash(email), now: env.clock())
        let outcome = try await EmailCodeSignIn(env: env, via: via).attempt(
            otpID: otpID, code: code, email: email, request: request)
        guard case .signedIn(var session) = outcome, let name, !name.isEmpty, session.user.profile.name == nil else {
            return outcome
        }
        session.user = try await env.pageBackend.setProfile(["name": .string(String(name.prefix(200)))], session: session)
        return .signedIn(session)
    }

    private func addressHash(_ email: String) -> String {
        env.sessions.bindings.hasher.hex("insforge-otp-request:" + EmailAddress.normalize(email))
    }
}
