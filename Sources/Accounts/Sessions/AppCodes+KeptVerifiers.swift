import AuthCore
import Foundation
import HTTPServer
import OAuth
import Secrets

/// App flows whose exchange sends no PKCE verifier (Descope's `oauth/exchange {code}`): the server
/// makes a random verifier for each flow and keeps it (in the database, by the flow's challenge)
/// until the flow's code is exchanged here. The code is then redeemable at this exchange alone —
/// never at one that takes the verifier from the app (InsForge's) — and one flow's verifier says
/// nothing about another's.
extension AppCodes {
    /// How long a flow's verifier is kept: the person's time at the provider, then the code's.
    static let keptVerifierLifetime: TimeInterval = 30 * 60

    /// A new flow's challenge, its verifier kept by the server.
    public func challengeWithKeptVerifier() async throws -> String {
        let verifier = SecureRandom.token()
        let challenge = try PKCE.challenge(for: verifier)
        let now = env.clock()
        try await env.database.keepVerifier(
            verifier, challenge: challenge, expiresAt: now.addingTimeInterval(Self.keptVerifierLifetime), now: now)
        return challenge
    }

    /// Spends `code` (as `redeem` does) with the verifier kept for its flow, which is taken.
    public func redeemWithKeptVerifier(_ code: String, request: Request) async throws -> Redemption {
        try await redeem(code, request: request) { record in
            try await env.database.takeVerifier(challenge: record.codeChallenge, now: env.clock())
        }
    }
}
