import AuthCore
import Foundation
import Secrets
import SystemCrypto

/// Verifies a compact JWS id_token (OpenID Connect Core §3.1.3.7), read strictly (`CompactJWS`):
/// signature by a key of the issuer's JWKS with an allow-listed algorithm (RS256, ES256 low-S —
/// never `none` or HMAC), then issuer, audience, expiry, issue time (not in the future) and nonce.
public struct IDTokenVerifier: Sendable {
    /// How the token's `nonce` claim must relate to what the flow remembered.
    public enum NonceRule: Sendable {
        /// The claim equals this value (web flows: Gatehouse made the nonce).
        case equals(String)
        /// The claim equals the lower-case hex SHA-256 of this raw nonce (Sign in with Apple, native).
        case sha256Of(String)
        /// No nonce was bound (a Google ID token sent without one): a token that carries a nonce
        /// belongs to a flow the caller cannot show, and is refused.
        case unbound
    }

    public var issuer: String
    public var audiences: Set<String>
    /// Clock skew tolerated on `exp` and `iat`.
    public var leeway: TimeInterval

    public init(issuer: String, audiences: Set<String>, leeway: TimeInterval = 60) {
        self.issuer = issuer
        self.audiences = audiences
        self.leeway = leeway
    }

    public func verify(_ token: String, keys: JSONWebKeySet, nonce: NonceRule, now: Date) throws(IDTokenError) -> IDToken {
        guard let jws = CompactJWS(token) else { throw .malformed("compact serialization") }
        let (payloadBytes, signature, signingInput) = (jws.payload, jws.signature, jws.signingInput)
        guard let header = try? JSONDecoder().decode([String: JSONValue].self, from: Data(jws.header)) else {
            throw .malformed("header")
        }
        let algorithm = header["alg"]?.stringValue ?? ""
        let keyID = header["kid"]?.stringValue
        switch algorithm {
        case "RS256":
            guard let key = keys.key(id: keyID, keyType: "RSA") else { throw .unknownKey }
            guard key.verifiesRS256(signature, over: signingInput) else { throw .badSignature }
        case "ES256":
            guard let key = keys.key(id: keyID, keyType: "EC") else { throw .unknownKey }
            guard key.verifiesES256(signature, over: signingInput) else { throw .badSignature }
        default:
            throw .unsupportedAlgorithm(algorithm)
        }
        guard let claims = try? JSONDecoder().decode([String: JSONValue].self, from: Data(payloadBytes)) else {
            throw .malformed("payload")
        }
        let idToken = try IDToken(claims: claims)
        guard idToken.issuer == issuer else { throw .wrongIssuer }
        guard !idToken.audience.isEmpty, idToken.audience.allSatisfy({ audiences.contains($0) }) else { throw .wrongAudience }
        guard idToken.expiresAt.addingTimeInterval(leeway) > now else { throw .expired }
        if let issuedAt = idToken.issuedAt, issuedAt > now.addingTimeInterval(leeway) { throw .issuedInFuture }
        let expected: String
        switch nonce {
        case .equals(let value): expected = value
        case .sha256Of(let raw):
            do { expected = Hex.encode(try SHA256.digest(raw.utf8)) } catch { throw .digestFailed(error) }
        case .unbound:
            guard idToken.nonce == nil else { throw .wrongNonce }
            return idToken
        }
        guard let claimed = idToken.nonce, KeyedHash.constantTimeEquals(claimed, expected) else { throw .wrongNonce }
        return idToken
    }
}
