import Foundation
import Secrets
import ServerSeam
import Store

/// Sign-in requests an app's own backend follows by ids it keeps (SuperTokens' passwordless
/// "devices": a device id in the app's frontend, a pre-auth session id in the link): which of the
/// backend's code requests a device is at now — a resend moves it — and its wrong tries. Kept in
/// the file, so a code created before a restart is spent after it. The code and link themselves
/// are the backend's (their lifetimes, tries and spending).
public struct AppSignInDevices: Sendable {
    public typealias Device = AppSignInDevice
    let env: Accounts

    public init(env: Accounts) { self.env = env }

    /// A new device for `email` at the code request `secrets` came from.
    public func add(email: String, accountExisted: Bool, secrets: SignInSecrets) async throws -> Device {
        let now = env.clock()
        let device = SignInDeviceRecord(
            deviceID: SecureRandom.token(), preAuthSessionID: SecureRandom.token(), email: email, accountExisted: accountExisted,
            otpID: secrets.otpID, codeID: SecureRandom.token(), codeCreatedAt: now, codeLifetime: secrets.lifetime,
            maximumAttempts: secrets.maximumAttempts)
        try await env.database.insertSignInDevice(device, now: now)
        return Device(device)
    }

    public func device(id: String) async throws -> Device? { try await env.database.signInDevice(id: id).map(Device.init) }

    public func device(preAuthSessionID: String) async throws -> Device? {
        try await env.database.signInDevice(preAuthSessionID: preAuthSessionID).map(Device.init)
    }

    /// The devices of an address, oldest first.
    public func devices(email: String) async throws -> [Device] {
        try await env.database.signInDevices(email: email).map(Device.init)
    }

    /// The device after a resend: at the new code request, its tries counted afresh; nil when it is gone.
    public func moved(_ id: String, to secrets: SignInSecrets) async throws -> Device? {
        try await env.database.moveSignInDevice(
            id: id, otpID: secrets.otpID, codeID: SecureRandom.token(), createdAt: env.clock(), lifetime: secrets.lifetime,
            maximumAttempts: secrets.maximumAttempts
        ).map(Device.init)
    }

    /// Counts a wrong code; the count so far.
    public func failed(_ id: String) async throws -> Int { try await env.database.countSignInDeviceFailure(id: id) }

    /// Forgets a device whose code or link was spent.
    public func remove(_ id: String) async throws { try await env.database.deleteSignInDevice(id: id) }
}
