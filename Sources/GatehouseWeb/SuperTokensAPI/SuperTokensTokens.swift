import Accounts
import AuthCore
import Foundation
import HTTPServer
import OAuth
import Secrets

/// SuperTokens sessions over Gatehouse's app sessions: each session handle names an `AppSessions`
/// row of `.superTokensCore` (`AppSessions.handle`), so it lists with the person's sessions and
/// dies with sign-out everywhere, a password change or a disable.
///
/// The access token is an ES256 JWT in the core's v5 shape (header `version: "5"`, a `kid` that
/// starts `d-` for the SDK's default dynamic key and `s-` for a static one — one key, published
/// under both); the SDK checks it against `/.well-known/jwks.json` and asks the core only when it
/// must. The refresh token is opaque to the SDK: an HS256-sealed `{h: handle, r: the row's
/// refresh token, d: the session's userDataInJWT}`, so a refresh carries the payload on without a
/// column to keep it in.
struct SuperTokensTokens: Sendable {
    /// Refresh tokens live 100 days, as the core's default; access tokens live
    /// `--supertokens-access-token-validity` (the core's `access_token_validity`, an hour).
    static let refreshLifetime: TimeInterval = 100 * 24 * 3600
    /// Claims the core sets; the app's `userDataInJWT` may not replace them.
    static let protectedClaims: Set<String> = [
        "sub", "exp", "iat", "sessionHandle", "refreshTokenHash1", "parentRefreshTokenHash1", "antiCsrfToken", "tId", "rsub"
    ]

    /// The `secrets` row holding the signing key's private scalar.
    static let signingKeyName = "supertokens-access-token-key"

    let env: PageEnvironment
    let dynamicKey: ES256Signer
    let staticKey: ES256Signer
    let refreshSeal: HS256Token
    /// Tokens whose signature held, by their whole text: the SDK presents one access token for its
    /// whole life, so its ES256 signature is checked once, not at every `verify`.
    private let verified = BoundedMemo<String, Verified>(capacity: 4096)

    private struct Verified: Sendable {
        var claims: [String: JSONValue]
        var dynamic: Bool
    }

    /// The key pair behind every access token, from the 32 raw bytes of its private scalar.
    init(env: PageEnvironment, rawPrivateKey: [UInt8], refreshSeal: HS256Token) throws {
        self.env = env
        dynamicKey = try ES256Signer(rawPrivateKey: rawPrivateKey, keyIDPrefix: "d-")
        staticKey = try ES256Signer(rawPrivateKey: rawPrivateKey, keyIDPrefix: "s-")
        self.refreshSeal = refreshSeal
    }

    var accessLifetime: TimeInterval { env.configuration.superTokensAccessTokenValidity }

    var sessions: AppSessions { AppSessions(env: env.accounts, kind: .superTokensCore) }

    /// Both `kid`s of the one key.
    var jwks: JSONWebKeySet { JSONWebKeySet(keys: dynamicKey.jwks.keys + staticKey.jwks.keys) }

    /// A session's parts as the core answers them (`session`, `accessToken`, `refreshToken`).
    struct Minted: Sendable {
        var handle: String
        var userID: String
        var userData: [String: JSONValue]
        var accessToken: String
        var accessExpiry: Int
        var refreshToken: String?
        var antiCsrfToken: String?
        var createdTime: Int

        func body() -> [String: JSONValue] {
            var body: [String: JSONValue] = [
                "status": "OK",
                "session": .object([
                    "handle": .string(handle), "userId": .string(userID), "recipeUserId": .string(userID),
                    "userDataInJWT": .object(userData), "tenantId": "public"
                ]),
                "accessToken": .object([
                    "token": .string(accessToken), "expiry": .number(Double(accessExpiry)),
                    "createdTime": .number(Double(createdTime))
                ])
            ]
            if let refreshToken {
                body["refreshToken"] = .object([
                    "token": .string(refreshToken),
                    "expiry": .number(Double(createdTime) + SuperTokensTokens.refreshLifetime * 1000),
                    "createdTime": .number(Double(createdTime))
                ])
            }
            if let antiCsrfToken { body["antiCsrfToken"] = .string(antiCsrfToken) }
            return body
        }
    }

    /// The claims of an access token this core signed (either `kid`), signature checked, expiry not.
    func claims(of token: String) -> [String: JSONValue]? { checked(token)?.claims }

    /// Whether the token's `kid` is the dynamic key's.
    func isDynamic(_ token: String) -> Bool { checked(token)?.dynamic ?? false }

    private func checked(_ token: String) -> Verified? {
        verified.value(for: token) {
            if let claims = dynamicKey.claims(of: token) { return Verified(claims: claims, dynamic: true) }
            return staticKey.claims(of: token).map { Verified(claims: $0, dynamic: false) }
        }
    }

    /// The app's claims in a token's payload (everything the core did not set).
    static func userData(of claims: [String: JSONValue]) -> [String: JSONValue] {
        claims.filter { !protectedClaims.contains($0.key) }
    }

    /// A signed access token for the session `handle` of `userID`.
    func accessToken(
        handle: String, userID: String, userData: [String: JSONValue], refreshToken: String, parentRefreshToken: String?,
        antiCsrfToken: String?, dynamic: Bool
    ) throws -> (token: String, expiry: Int, createdTime: Int) {
        var claims = userData.filter { !Self.protectedClaims.contains($0.key) }
        claims["sub"] = .string(userID)
        claims["rsub"] = .string(userID)
        claims["tId"] = "public"
        claims["sessionHandle"] = .string(handle)
        claims["refreshTokenHash1"] = .string(try Self.hash(refreshToken))
        if let parentRefreshToken { claims["parentRefreshTokenHash1"] = .string(try Self.hash(parentRefreshToken)) }
        if let antiCsrfToken { claims["antiCsrfToken"] = .string(antiCsrfToken) }
        return try sign(claims, dynamic: dynamic)
    }

    /// Signs an access token's claims with a new `iat` and an `exp` of `expiry` (a full lifetime
    /// from now when nil; now in the time of the account `sub` names), under the dynamic or the static `kid`.
    func sign(_ claims: [String: JSONValue], dynamic: Bool, expiry: Date? = nil) throws
        -> (token: String, expiry: Int, createdTime: Int)
    {
        let now = now(of: claims)
        let expires = expiry ?? now.addingTimeInterval(accessLifetime)
        var claims = claims
        claims["iat"] = .number(now.timeIntervalSince1970.rounded(.down))
        claims["exp"] = .number(expires.timeIntervalSince1970.rounded(.down))
        let token = try (dynamic ? dynamicKey : staticKey).sign(claims, header: ["version": "5"])
        return (token, Int(expires.timeIntervalSince1970 * 1000), Int(now.timeIntervalSince1970 * 1000))
    }

    /// Now in the time of the account a token's `sub` names (`AccountClocks`).
    func now(of claims: [String: JSONValue]) -> Date {
        claims["sub"]?.stringValue.map(env.accounts.clocks.now(forAccount:)) ?? env.clock()
    }

    /// A refresh token's sealed parts.
    struct RefreshParts: Codable, Sendable {
        /// The session handle.
        var h: String
        /// The row's own refresh token.
        var r: String
        /// The session's `userDataInJWT`.
        var d: [String: JSONValue]
    }

    func sealRefresh(_ parts: RefreshParts) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return refreshSeal.sign(payload: (try? encoder.encode(parts)) ?? Data())
    }

    func openRefresh(_ token: String) -> RefreshParts? {
        refreshSeal.verify(token).flatMap { try? JSONDecoder().decode(RefreshParts.self, from: $0) }
    }

    /// A refresh token's hash in the access token: its SHA-256, base64url (the core writes hex;
    /// SDKs only carry it).
    static func hash(_ refreshToken: String) throws -> String { try PKCE.challenge(for: refreshToken) }
}
