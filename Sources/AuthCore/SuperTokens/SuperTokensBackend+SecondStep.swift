import Foundation

/// The authenticator app over the totp recipe and the second step over SuperTokens' MFA: the
/// account's device is set up with `totp/device` and confirmed with `totp/device/verify`; a sign-in
/// that owes its step (`.secondStep`, named by its access token) completes with `totp/verify`.
/// The FDI keeps no recovery codes, and removes a device without a password: neither is offered.
extension SuperTokensBackend {
    public func totpStatus(session: AuthSession) async throws -> TOTPStatus {
        TOTPStatus(enabled: try await devices(session).contains { $0.verified }, recoveryCodesLeft: 0)
    }

    /// `totp/device`: a key for the person's authenticator app, not on until its first code.
    public func beginTOTPEnrollment(session: AuthSession) async throws -> TOTPEnrollment {
        let reply = try await fdi.call("POST", "totp/device", rid: "totp", bearer: session.accessToken).ok()
        guard let secret = reply.body["secret"]?.stringValue, let url = reply.body["qrCodeString"]?.stringValue else {
            throw SuperTokensUserBody.badResponse("totp/device answered without its secret")
        }
        return TOTPEnrollment(secret: secret, provisioningURL: url)
    }

    /// `totp/device/verify {deviceName, totp}` for the device waiting for its first code. The FDI
    /// hands out no recovery codes: the list is empty.
    public func confirmTOTPEnrollment(code: String, session: AuthSession) async throws -> [String] {
        guard let pending = try await devices(session).first(where: { !$0.verified }) else { throw AuthError.codeExpired }
        try await fdi.call(
            "POST", "totp/device/verify", rid: "totp", bearer: session.accessToken,
            body: ["deviceName": .string(pending.name), "totp": .string(code)]
        ).ok()
        return []
    }

    /// `totp/verify {totp}` with the first step's access token: the session, and its account as
    /// the Rownd plugin shows it.
    public func completeMFA(challengeID: String, with factor: SecondFactor) async throws -> AuthSession {
        guard case .totp(let code) = factor else { throw AuthError.notSupported(.mfa) }
        let reply = try await fdi.call("POST", "totp/verify", rid: "totp", bearer: challengeID, body: ["totp": .string(code)])
            .ok()
        guard let access = reply.accessToken else { throw SuperTokensUserBody.badResponse("totp/verify opened no session") }
        return try session(from: reply, user: try await account(of: access))
    }

    /// The account's devices (`totp/device/list`): each one's name and whether it is on.
    private func devices(_ session: AuthSession) async throws -> [(name: String, verified: Bool)] {
        let reply = try await fdi.call("GET", "totp/device/list", rid: "totp", bearer: session.accessToken).ok()
        guard case .array(let items)? = reply.body["devices"] else { return [] }
        return items.compactMap {
            guard case .object(let device) = $0, let name = device["name"]?.stringValue else { return nil }
            return (name, device["verified"] == .bool(true))
        }
    }
}
