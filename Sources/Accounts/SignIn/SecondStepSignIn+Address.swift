import AuthCore
import Foundation
import HTTPServer
import Secrets
import ServerSeam

/// A pending second step found by the account's address, for ways in whose second step names the
/// address alone (Descope's `totp/verify {loginId, code}` after a password sign-in that needs it).
/// The challenge's id is kept in Store under the address's keyed hash, beside `SignInCodes`'
/// requests, for the challenge's lifetime; the newest replaces an older one. The try itself is
/// `attempt(challengeID:…)`: the same budgets, tries and audit as every other second step.
extension SecondStepSignIn {
    /// How long a pending step is kept when the backend gives its challenge no end.
    public static let pendingLifetime: TimeInterval = 5 * 60

    /// Keeps `challenge` as `email`'s pending second step.
    public func remember(_ challenge: MFAChallenge, for email: String) async throws {
        // It ends in the account's time; the server's drops other addresses' ended steps.
        let expiresAt: Date
        if let end = challenge.expiresAt {
            expiresAt = end
        } else {
            expiresAt = await env.clocks.now(forAddress: email).addingTimeInterval(Self.pendingLifetime)
        }
        try await env.database.rememberOTPRequest(
            emailHash: pendingHash(email), otpID: challenge.id, expiresAt: expiresAt, now: env.clock())
    }

    /// Keeps `challenge` as its account's pending second step and names that account, for ways in
    /// whose frontend holds no challenge (SuperTokens' FDI: its `totp/verify` names the session's
    /// account); nil when the backend cannot name the account.
    public func rememberForItsAccount(_ challenge: MFAChallenge) async throws -> User? {
        guard let id = try await (env.backend as? any SecondStepOwners)?.owner(ofSecondStep: challenge.id),
            let user = try? await UserDirectory(env: env).user(id)
        else { return nil }
        try await remember(challenge, for: user.email)
        return user
    }

    /// Tries `factor` on `email`'s pending second step. An address without one (never asked,
    /// unknown, out of date) tries a challenge nobody holds: the same budget, audit and answer
    /// (`.expired`) as a spent challenge, so the answer tells nobody whether a password was just right.
    public func attempt(email: String, factor: SecondFactor, request: Request) async throws -> SignInResult {
        let pending = try await env.database.otpRequest(
            emailHash: pendingHash(email), now: await env.clocks.now(forAddress: email))
        return try await attempt(challengeID: pending ?? SecureRandom.token(), factor: factor, request: request)
    }

    /// Whether `email` has a second step pending (no secret compared): a code for it completes that
    /// sign-in rather than standing alone (`AuthenticatorAppSignIn`).
    public func isPending(email: String) async throws -> Bool {
        try await env.database.otpRequest(emailHash: pendingHash(email), now: await env.clocks.now(forAddress: email)) != nil
    }

    private func pendingHash(_ email: String) -> String {
        env.sessions.bindings.hasher.hex("second-step-pending:" + EmailAddress.normalize(email))
    }
}
