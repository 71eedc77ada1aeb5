import AuthCore

/// Sign-in secrets handed to a test suite instead of mailed (Descope's management API for test
/// users): each minted and stored under the rules of the one a mail would carry — lifetime,
/// tries, single use, the address's older one dying — and returned, nothing mailed. The embedded
/// backend has it; remote backends mail their own.
public protocol UnmailedSignInSecrets: Sendable {
    /// A sign-in code for `email`, spent by `signIn(otpID:code:)`: its request id and the code.
    func unmailedSignInCode(email: String, allowSignUp: Bool) async throws -> (otpID: String, code: String)
    /// A single-use sign-in link's token for `email`, spent by `signIn(magicLinkToken:browserBinding:)`;
    /// bound to `browserBinding` (an enchanted link's) or to no browser. An account a right link
    /// creates gets `signUpProfile`.
    func unmailedSignInLink(
        email: String, allowSignUp: Bool, browserBinding: String?, signUpProfile: Profile?
    ) async throws -> String
}
