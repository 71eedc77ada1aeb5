import AuthCore
import Foundation
import ServerSeam

/// Passwordless sign-in on the seam (`.emailOTP`, `.magicLink`): `LocalAccounts`' rules, then a
/// session like a password sign-in's.
extension LocalBackend {
    public func requestEmailOTP(email: String, allowSignUp: Bool) async throws -> String {
        try await accounts.requestEmailOTP(email: email, allowSignUp: allowSignUp)
    }

    public func signIn(otpID: String, code: String) async throws -> SignInResult {
        try await sessionOrChallenge(for: try await accounts.signIn(otpID: otpID, code: code), firstMethod: "email_code")
    }

    public func requestMagicLink(email: String, allowSignUp: Bool, browserBinding: String) async throws {
        try await accounts.requestMagicLink(email: email, allowSignUp: allowSignUp, browserBinding: browserBinding)
    }

    public func signIn(magicLinkToken: String, browserBinding: String?) async throws -> SignInResult {
        try await sessionOrChallenge(
            for: try await accounts.signIn(magicLinkToken: magicLinkToken, browserBinding: browserBinding),
            firstMethod: "magic_link")
    }
}

extension LocalBackend: EnchantedLinks {
    public func requestMagicLink(
        email: String, allowSignUp: Bool, browserBinding: String, opening link: LinkOpening, signUpProfile: Profile?
    ) async throws {
        try await accounts.requestMagicLink(
            email: email, allowSignUp: allowSignUp, browserBinding: browserBinding, opening: link, signUpProfile: signUpProfile)
    }

    public func browserBinding(ofMagicLink token: String) async throws -> String? {
        try await accounts.browserBinding(ofMagicLink: token)
    }
}

extension LocalBackend: CodeSignUpProfiles {
    public func requestEmailOTP(email: String, allowSignUp: Bool, signUpProfile: Profile) async throws -> String {
        try await accounts.requestEmailOTP(email: email, allowSignUp: allowSignUp, signUpProfile: signUpProfile)
    }
}
