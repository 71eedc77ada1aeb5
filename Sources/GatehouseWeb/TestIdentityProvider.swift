import AuthCore
import Foundation
import OAuth
import Secrets
import Store

/// The built-in test provider's token side: spends a code it issued, once, within 60 s, and
/// only with the PKCE verifier and redirect URI of the authorization request.
struct TestIdentityProvider: Sendable {
    let database: AppDatabase
    let hasher: KeyedHash
    let clock: @Sendable () -> Date

    static let codeLifetime: TimeInterval = 60

    enum Refusal: Error, Equatable {
        case unknownCode, wrongRedirectURI, wrongVerifier, wrongNonce
    }

    func issueCode(provider: String, identity: TestIdentityRecord, redirectURI: String, codeChallenge: String,
                   nonce: String) async throws -> String {
        let code = SecureRandom.token()
        let now = clock()
        try await database.insertTestCode(codeHash: hasher.hex("test-idp:" + code), provider: provider, identityID: identity.id,
                                          redirectURI: redirectURI, codeChallenge: codeChallenge, nonce: nonce,
                                          at: now, expiresAt: now.addingTimeInterval(Self.codeLifetime))
        return code
    }

    func exchange(provider: String, code: String, redirectURI: String, codeVerifier: String, nonce: String) async throws -> ExternalIdentity {
        guard let grant = try await database.consumeTestCode(codeHash: hasher.hex("test-idp:" + code), provider: provider,
                                                             at: clock()) else { throw Refusal.unknownCode }
        guard grant.redirectURI == redirectURI else { throw Refusal.wrongRedirectURI }
        guard PKCE.verify(verifier: codeVerifier, challenge: grant.codeChallenge) else { throw Refusal.wrongVerifier }
        guard grant.nonce == nonce else { throw Refusal.wrongNonce }
        let identity = grant.identity
        return ExternalIdentity(provider: provider, subject: identity.subject, email: identity.email,
                                emailVerified: identity.emailVerified, name: identity.name)
    }

    /// The chooser's ready-made people: one verified, one whose email is not verified.
    static let fixedIdentities: [(subject: String, email: String, verified: Bool, name: String)] = [
        ("test-alex", "alex@test.gatehouse.local", true, "Alex Tester"),
        ("test-sam", "sam.unverified@test.gatehouse.local", false, "Sam Unverified"),
    ]
}
