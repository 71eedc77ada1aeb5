/// Defaults for the optional calls. A backend without `Capability.externalSignIn` cannot take
/// provider identities Gatehouse vouches for (PocketBase runs its own OAuth flows).
extension AuthAPI {
    /// Backends that keep no sessions of their own have nothing to describe.
    public func opening(for client: SessionClient) -> any AuthAPI { self }

    public func signIn(with identity: ExternalIdentity, allowCreate: Bool) async throws -> ExternalSignIn {
        throw AuthError.notSupported(.externalSignIn)
    }

    public func link(_ identity: ExternalIdentity, session: AuthSession) async throws -> ExternalAuth {
        throw AuthError.notSupported(.externalSignIn)
    }
}
