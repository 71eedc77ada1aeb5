import AuthCore
import Foundation
import OAuth
import Secrets
import Store

/// The built-in test provider's store: the people its chooser offers (`test_idp_accounts`) and its
/// codes — a code it issued is spent once, within 60 s, and only with the PKCE verifier and
/// redirect URI of the authorization request (`POST …/token`).
public struct TestIdentityProvider: Sendable {
    let database: AppDatabase
    let hasher: KeyedHash
    let clock: @Sendable () -> Date

    public init(env: Accounts, hasher: KeyedHash) {
        database = env.database
        self.hasher = hasher
        clock = env.clock
    }

    /// The people made for `provider` so far, oldest first.
    public func identities(provider: String) async throws -> [TestIdentity] {
        try await database.testIdentities(provider: provider).map(TestIdentity.init)
    }

    /// One of `provider`'s people; nil when there is none of that id.
    public func identity(id: Int64, provider: String) async throws -> TestIdentity? {
        try await database.testIdentity(id: id, provider: provider).map(TestIdentity.init)
    }

    /// Stores (or refreshes, by subject) one of `provider`'s people.
    public func save(
        provider: String, subject: String, email: String, emailVerified: Bool, name: String?
    ) async throws -> TestIdentity {
        TestIdentity(
            try await database.saveTestIdentity(
                provider: provider, subject: subject, email: email, emailVerified: emailVerified, name: name, at: clock()))
    }

    static let codeLifetime: TimeInterval = 60

    public enum Refusal: Error, Equatable {
        case unknownCode, wrongRedirectURI, wrongVerifier

        public var description: String {
            switch self {
            case .unknownCode: "The code is unknown, expired or already used."
            case .wrongRedirectURI: "redirect_uri does not match the authorization request."
            case .wrongVerifier: "code_verifier does not match the code challenge."
            }
        }
    }

    public func issueCode(
        provider: String, identity: TestIdentity, redirectURI: String, codeChallenge: String,
        nonce: String
    ) async throws -> String {
        let code = SecureRandom.token()
        let now = clock()
        try await database.insertTestCode(
            codeHash: hasher.hex("test-idp:" + code), provider: provider, identityID: identity.id,
            redirectURI: redirectURI, codeChallenge: codeChallenge, nonce: nonce,
            at: now, expiresAt: now.addingTimeInterval(Self.codeLifetime))
        return code
    }

    /// Spends the code on the first attempt, right or wrong, then checks what the token request proves.
    public func redeem(provider: String, code: String, redirectURI: String, codeVerifier: String) async throws
        -> TestIdentityGrant
    {
        guard
            let grant = try await database.consumeTestCode(
                codeHash: hasher.hex("test-idp:" + code), provider: provider,
                at: clock())
        else { throw Refusal.unknownCode }
        guard grant.redirectURI == redirectURI else { throw Refusal.wrongRedirectURI }
        guard PKCE.verify(verifier: codeVerifier, challenge: grant.codeChallenge) else { throw Refusal.wrongVerifier }
        return TestIdentityGrant(grant)
    }

    /// The chooser's ready-made people: one verified, one whose email is not verified.
    public static let fixedIdentities: [(subject: String, email: String, verified: Bool, name: String)] = [
        ("test-alex", "alex@test.gatehouse.local", true, "Alex Tester"),
        ("test-sam", "sam.unverified@test.gatehouse.local", false, "Sam Unverified")
    ]
}
