/// Passkeys on the client, named after DescopeKit's `Descope.passkey` (`signIn`, `add`): the
/// server halves of the WebAuthn ceremonies, each a start (options for the platform's call) and a
/// finish (the platform's answer, as JSON text). The app runs the platform's half in between:
/// `navigator.credentials.create/get` on the web, ASAuthorization on Apple platforms. A backend
/// without `.passkeys` throws `.notSupported(.passkeys)`.
extension AuthClient {
    /// Options to sign `email` in with one of its passkeys, for the relying party `origin` names
    /// (the app's web origin, or `https://` and its associated domain).
    public func passkeySignInStart(email: String, origin: String) async throws -> PasskeyStart {
        try await api.passkeySignInStart(email: email, origin: origin)
    }

    /// Signs in with the platform's answer to `passkeySignInStart`'s options. Both factors: no
    /// second step follows.
    @discardableResult
    public func passkeySignInFinish(transactionID: String, credentialJSON: String) async throws -> AuthSession {
        let session = try await api.passkeySignInFinish(transactionID: transactionID, credentialJSON: credentialJSON)
        try await replace(with: session, event: .signedIn)
        return session
    }

    /// Options to add a passkey to the signed-in account.
    public func passkeyAddStart(origin: String) async throws -> PasskeyStart {
        let current = try await requireSession()
        return try await authorized(current) { try await api.passkeyRegistrationStart(origin: origin, session: $0) }
    }

    /// Keeps the passkey the platform made from `passkeyAddStart`'s options.
    public func passkeyAddFinish(transactionID: String, credentialJSON: String) async throws {
        let current = try await requireSession()
        try await authorized(current) {
            try await api.passkeyRegistrationFinish(transactionID: transactionID, credentialJSON: credentialJSON, session: $0)
        }
    }
}
