import AuthCore
import Foundation
import TwoFactor

/// The account's authenticator as SuperTokens' TOTP recipe lists it — the core's for an app's
/// backend, the FDI's for a person's frontend — read the one way: its one "device", on, or handed
/// out and still fresh, under the name the app gave it.
extension AppAuthenticatorDevices {
    /// The account's one device.
    public struct Device: Sendable, Equatable {
        public var name: String
        public var verified: Bool
        /// Whether the app named it (else it answers to any name: it was turned on elsewhere, on the pages).
        var named: Bool

        public func answers(to name: String) -> Bool { !named || self.name == name }
    }

    /// SuperTokens' name for a first device created without one.
    public static let defaultName = "TOTP Device 0"

    /// The account's authenticator, on or handed out and fresh; nil for none or no account.
    public func device(of userID: String) async throws -> Device? {
        let entry = try await entry(userID)
        let on: Bool
        do {
            on = try await AuthenticatorApp(env: env).status(of: UserID(userID)).enabled
        } catch AuthError.userNotFound {
            return nil
        }
        let name = entry.name ?? Self.defaultName
        if on { return Device(name: name, verified: true, named: entry.name != nil) }
        guard let since = entry.pendingSince, env.clock().timeIntervalSince(since) < TOTPRules.pendingEnrollmentLifetime
        else { return nil }
        return Device(name: name, verified: false, named: true)
    }
}
