/// Refusals specific to linked external identities (kept apart from `AuthError` so backends
/// without linked accounts never see them).
public enum ExternalAuthError: Error, Sendable, Equatable {
    /// The identity is linked to another account, or this account already links another identity of that provider.
    case alreadyLinked
    /// An account with the provider's email exists but the address is not verified on both sides,
    /// so it is not taken over; the owner must sign in and link from their account page.
    case emailBelongsToAnotherAccount
    /// Removing this sign-in method would leave the account no way to sign in.
    case lastSignInMethod
    /// New accounts may not be created through this provider.
    case signUpClosed
    /// The identity is not linked to this account.
    case notLinked
}
