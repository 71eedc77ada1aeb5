import Secrets
import SystemCrypto

/// Proof Key for Code Exchange (RFC 7636), S256 only: `plain` gives no protection against a
/// stolen code, so Gatehouse neither sends nor accepts it.
public enum PKCE {
    /// The only method Gatehouse speaks.
    public static let method = "S256"

    /// `BASE64URL(SHA256(verifier))` without padding (RFC 7636 §4.2).
    public static func challenge(for verifier: String) throws(SystemCryptoError) -> String {
        Base64URL.encode(try SHA256.digest(verifier.utf8))
    }

    /// A verifier is 43…128 characters of `[A-Za-z0-9-._~]` (RFC 7636 §4.1).
    public static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count) && verifier.utf8.allSatisfy(isUnreserved)
    }

    /// A challenge is an unpadded base64url SHA-256: exactly 43 characters.
    public static func isValidChallenge(_ challenge: String) -> Bool {
        challenge.utf8.count == 43 && challenge.utf8.allSatisfy(isUnreserved)
    }

    /// True when `verifier` hashes to `challenge`, compared in constant time; false when it does
    /// not, or when it cannot be hashed (a check that cannot be made never passes).
    public static func verify(verifier: String, challenge: String) -> Bool {
        guard isValidVerifier(verifier), let hashed = try? Self.challenge(for: verifier) else { return false }
        return KeyedHash.constantTimeEquals(hashed, challenge)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
