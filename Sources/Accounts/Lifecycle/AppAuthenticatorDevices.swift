import Foundation
import Store

/// What an app's own backend keeps about an account's authenticator beyond Gatehouse's one key per
/// account (SuperTokens' TOTP "device"): the name the app gave it, whether a key was handed out
/// and not yet confirmed, and the wrong codes since the account's last sign-in (the counts the
/// core reports). Kept in the file, so a restart loses neither the name nor the count.
public struct AppAuthenticatorDevices: Sendable {
    typealias Entry = AppAuthenticatorDevice
    let env: Accounts

    public init(env: Accounts) { self.env = env }

    func entry(_ user: String) async throws -> Entry {
        Entry(try await env.database.appAuthenticatorDevice(userID: user))
    }

    /// A key handed out for enrolment under `name`.
    public func handedOut(_ user: String, name: String) async throws {
        let now = env.clock()
        try await env.database.updateAppAuthenticatorDevice(userID: user) {
            ($0.name, $0.pendingSince, $0.failedAttempts) = (name, now, 0)
        }
    }

    /// The authenticator confirmed: no longer pending, its wrong codes forgotten.
    public func confirmed(_ user: String) async throws {
        try await env.database.updateAppAuthenticatorDevice(userID: user) { ($0.pendingSince, $0.failedAttempts) = (nil, 0) }
    }

    public func renamed(_ user: String, to name: String) async throws {
        try await env.database.updateAppAuthenticatorDevice(userID: user) { $0.name = name }
    }

    /// Counts a wrong code; the count so far.
    public func failed(_ user: String) async throws -> Int {
        try await env.database.updateAppAuthenticatorDevice(userID: user) { $0.failedAttempts += 1 }.failedAttempts
    }

    /// A new sign-in (or a right code): its wrong codes start from nothing.
    public func resetFailures(_ user: String) async throws {
        try await env.database.updateAppAuthenticatorDevice(userID: user) { $0.failedAttempts = 0 }
    }

    /// The authenticator was removed: nothing is kept about it.
    public func forget(_ user: String) async throws { try await env.database.deleteAppAuthenticatorDevice(userID: user) }
}
