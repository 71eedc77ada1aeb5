import AuthCore
import Foundation
import SystemCrypto

/// The checked claims of an OpenID Connect id_token.
public struct IDToken: Sendable, Equatable {
    public var issuer: String
    public var subject: String
    public var audience: [String]
    public var expiresAt: Date
    /// `iat`, when the issuer sent one.
    public var issuedAt: Date?
    /// `jti`, the token's own id, when the issuer sent one.
    public var tokenID: String?
    public var nonce: String?
    public var email: String?
    public var emailVerified: Bool
    public var name: String?
    public var picture: String?

    /// What names this token whatever its spelling, for refusing a replay: its issuer, subject and
    /// `jti` — or, without one, its `iat` and nonce. Each part is length-prefixed, so no two
    /// tokens' parts run together into the same key.
    public var replayKey: String {
        let naming = tokenID.map { ["jti", $0] } ?? ["iat", issuedAt.map { "\($0.timeIntervalSince1970)" } ?? "", nonce ?? ""]
        return ([issuer, subject] + naming).map { "\($0.utf8.count):\($0)" }.joined()
    }

    /// Reads the claims object; `email_verified` may be a bool or the string "true" (Apple sends strings).
    init(claims: [String: JSONValue]) throws(IDTokenError) {
        guard case .string(let issuer)? = claims["iss"] else { throw .malformed("iss") }
        guard case .string(let subject)? = claims["sub"], !subject.isEmpty else { throw .malformed("sub") }
        guard case .number(let exp)? = claims["exp"] else { throw .malformed("exp") }
        switch claims["aud"] {
        case .string(let single)?: audience = [single]
        case .array(let many)?: audience = many.compactMap(\.stringValue)
        default: throw .malformed("aud")
        }
        self.issuer = issuer
        self.subject = subject
        expiresAt = Date(timeIntervalSince1970: exp)
        if case .number(let iat)? = claims["iat"] { issuedAt = Date(timeIntervalSince1970: iat) }
        tokenID = claims["jti"]?.stringValue
        nonce = claims["nonce"]?.stringValue
        email = claims["email"]?.stringValue
        switch claims["email_verified"] {
        case .bool(let flag)?: emailVerified = flag
        case .string(let text)?: emailVerified = text == "true"
        default: emailVerified = false
        }
        name = claims["name"]?.stringValue
        picture = claims["picture"]?.stringValue
    }
}

/// Why an id_token was refused; the page shows one generic message, the log names the reason.
public enum IDTokenError: Error, Sendable, Equatable {
    case malformed(String)
    case unsupportedAlgorithm(String)
    case unknownKey
    case badSignature
    case wrongIssuer
    case wrongAudience
    case expired
    /// `iat` lies further in the future than the clock-skew leeway.
    case issuedInFuture
    case wrongNonce
    /// libcrypto failed to hash the nonce: a fault of this server, not of the token.
    case digestFailed(SystemCryptoError)
}
