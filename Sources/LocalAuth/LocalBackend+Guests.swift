import AuthCore
import ServerSeam

extension LocalBackend: GuestSignUps {
    /// A guest account with a session of its own: it has no other way in.
    public func signUpGuest() async throws -> SignUpOutcome {
        let user = try await accounts.signUpGuest()
        return SignUpOutcome(user: user, session: try await openSession(for: user), requireEmailVerification: false)
    }

    /// As `signUp`, for guest `id`: mailed unless this value admits unverified accounts (the app
    /// verifies), and a session opened when the account need not verify first.
    public func upgradeGuest(_ id: UserID, to signUp: SignUpRequest) async throws -> SignUpOutcome {
        var outcome = try await accounts.upgradeGuest(id, to: signUp, mailsVerification: !admitsUnverified)
        if !outcome.requireEmailVerification { outcome.session = try await openSession(for: outcome.user) }
        return outcome
    }

    public func signIn(otpID: String, code: String, upgrading guest: UserID) async throws -> SignInResult {
        try await sessionOrChallenge(
            for: try await accounts.signIn(otpID: otpID, code: code, upgrading: guest), firstMethod: "email_code")
    }

    public func signIn(magicLinkToken: String, browserBinding: String?, upgrading guest: UserID) async throws -> SignInResult {
        try await sessionOrChallenge(
            for: try await accounts.signIn(magicLinkToken: magicLinkToken, browserBinding: browserBinding, upgrading: guest),
            firstMethod: "magic_link")
    }

    public func isGuest(_ id: UserID) async throws -> Bool { try await database.isGuest(id) }
}
