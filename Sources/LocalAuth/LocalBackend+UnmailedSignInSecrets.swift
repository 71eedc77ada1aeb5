import AuthCore
import ServerSeam

extension LocalBackend: UnmailedSignInSecrets {
    public func unmailedSignInCode(email: String, allowSignUp: Bool) async throws -> (otpID: String, code: String) {
        let issued = try await accounts.issueEmailOTP(email: email, allowSignUp: allowSignUp)
        return (issued.otpID, issued.code)
    }

    public func unmailedSignInLink(
        email: String, allowSignUp: Bool, browserBinding: String?, signUpProfile: Profile?
    ) async throws -> String {
        try await accounts.issueMagicLink(
            email: email, allowSignUp: allowSignUp, browserBinding: browserBinding, signUpProfile: signUpProfile
        ).secret
    }
}
