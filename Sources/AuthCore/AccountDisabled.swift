/// The right password for an account staff disabled: thrown only after the password matched, so
/// it tells nothing to whoever does not know the password (a wrong one stays `.invalidCredentials`).
/// Only Gatehouse's own ways in meet it; each says "disabled" in its API's words.
public struct AccountDisabled: Error, Sendable, Equatable {
    public init() {}
}
