/// Passkeys (`.passkeys`) over Descope's `auth/webauthn/…`, as DescopeKit's `Descope.passkey`
/// calls it: `start` answers `{transactionId, options, create}` with `options` as JSON text, and
/// `finish` takes `{transactionId, response}` with the platform's credential as JSON text.
extension DescopeBackend {
    public func passkeySignInStart(email: String, origin: String) async throws -> PasskeyStart {
        try await http.json(
            Start.self, "POST", "auth/webauthn/signin/start", body: ["loginId": .string(email), "origin": .string(origin)]
        ).passkeyStart
    }

    public func passkeySignInFinish(transactionID: String, credentialJSON: String) async throws -> AuthSession {
        try session(
            from: try await http.json(
                DescopeJWTResponse.self, "POST", "auth/webauthn/signin/finish",
                body: ["transactionId": .string(transactionID), "response": .string(credentialJSON)]))
    }

    /// `update/start` names the signed-in account's address, as DescopeKit's `passkey.add` does.
    public func passkeyRegistrationStart(origin: String, session: AuthSession) async throws -> PasskeyStart {
        try await http.json(
            Start.self, "POST", "auth/webauthn/update/start", refreshJwt: try refreshJwt(of: session),
            body: ["loginId": .string(session.user.email), "origin": .string(origin)]
        ).passkeyStart
    }

    public func passkeyRegistrationFinish(transactionID: String, credentialJSON: String, session: AuthSession) async throws {
        try await http.send(
            "POST", "auth/webauthn/update/finish", refreshJwt: try refreshJwt(of: session),
            body: ["transactionId": .string(transactionID), "response": .string(credentialJSON)])
    }

    /// Descope's `start` answer.
    private struct Start: Decodable {
        var transactionId: String
        var options: String
        var create: Bool

        var passkeyStart: PasskeyStart { PasskeyStart(transactionID: transactionId, optionsJSON: options, create: create) }
    }
}
