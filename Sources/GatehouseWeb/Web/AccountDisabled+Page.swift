import AuthCore

extension AccountDisabled {
    /// What the sign-in page says after a disabled account's right password.
    static let pageMessage = "This account is disabled. Ask the people who run this site to turn it back on."
}
