import AuthCore

/// A backend whose mailed sign-in codes carry the profile of the account a right one creates
/// (Descope's `otp/signup` sends `user: {name, …}` with the request, never with the code). Links
/// carry one through `EnchantedLinks`. The embedded backend has it.
public protocol CodeSignUpProfiles: AuthAPI {
    /// `requestEmailOTP`, the account a right code creates getting `signUpProfile`.
    func requestEmailOTP(email: String, allowSignUp: Bool, signUpProfile: Profile) async throws -> String
}
