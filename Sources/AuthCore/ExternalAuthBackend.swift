/// A backend that keeps external identities (`Capability.externalAuths`). Separate from
/// `AuthBackend` so backends without linked accounts need not implement it.
public protocol ExternalAuthBackend: Sendable {
    /// The identities linked to an account, oldest first.
    func externalAuths(userID: UserID) async throws -> [ExternalAuth]

    /// Signs in with a provider identity: the linked account when (provider, subject) is known;
    /// else the account with the same address when *both* sides have it verified (then linked);
    /// else a new account when `allowCreate`. An existing account with that address that is not
    /// verified on both sides is never taken over (pre-hijacking defence): `ExternalAuthError.emailBelongsToAnotherAccount`.
    func signIn(with identity: ExternalIdentity, allowCreate: Bool) async throws -> ExternalSignIn

    /// Links the identity to a signed-in account. Fails with `.alreadyLinked` when another
    /// account holds it, or when this account already has another identity of that provider.
    func link(_ identity: ExternalIdentity, to userID: UserID) async throws -> ExternalAuth

    /// Removes a link; refused with `.lastSignInMethod` when it would leave no way to sign in.
    func unlink(provider: String, from userID: UserID) async throws
}

/// The account a provider sign-in reached, and how.
public struct ExternalSignIn: Sendable, Equatable {
    public enum Outcome: String, Sendable, Equatable {
        case existingLink = "existing_link"
        case linkedByVerifiedEmail = "linked_by_verified_email"
        case created
    }

    public var user: User
    public var outcome: Outcome

    public init(user: User, outcome: Outcome) {
        self.user = user
        self.outcome = outcome
    }
}
