internal import CSodium
import Foundation

/// JSON Web Tokens signed with HMAC-SHA-256 (RFC 7519, `alg: HS256`) under one 32-byte key: the
/// shape PocketBase's SDKs read their `exp` and ids from. Only the signature is checked here; the
/// caller decodes the payload and checks its claims (expiry, type).
public struct HS256Token: Sendable {
    private static let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
    private let key: [UInt8]

    /// Fails when `key` is not exactly 32 bytes.
    public init(key: [UInt8]) throws(SecretsError) {
        guard key.count == Int(crypto_auth_hmacsha256_KEYBYTES) else { throw .invalidKeyLength(key.count) }
        Sodium.ready()
        self.key = key
    }

    /// A signer under a key derived from the server key for `context` (always the right length).
    public init(derivedFrom keyedHash: KeyedHash, context: String) {
        Sodium.ready()
        key = keyedHash.derivedKey(for: context)
    }

    /// `header.payload.signature` for the payload's JSON bytes.
    public func sign(payload: Data) -> String {
        let signingInput = Self.header + "." + Base64URL.encode(Array(payload))
        return signingInput + "." + Base64URL.encode(mac(signingInput))
    }

    /// The payload's JSON bytes when `token` is an HS256 token signed with this key, else nil
    /// (another algorithm, another key, an altered part, or not a token at all).
    public func verify(_ token: String) -> Data? {
        // Split as bytes: `String.split` walks grapheme clusters, which was a twentieth of an
        // auth-refresh.
        let bytes = token.utf8
        let parts = bytes.split(separator: UInt8(ascii: "."), maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].elementsEqual(Self.header.utf8),
            let signature = Base64URL.decode(Substring(parts[2])),
            signature.count == Int(crypto_auth_hmacsha256_BYTES), let payload = Base64URL.decode(Substring(parts[1]))
        else { return nil }
        let signingInput = Array(bytes[..<parts[1].endIndex])
        let valid = crypto_auth_hmacsha256_verify(signature, signingInput, UInt64(signingInput.count), key) == 0
        return valid ? Data(payload) : nil
    }

    private func mac(_ signingInput: String) -> [UInt8] {
        let input = Array(signingInput.utf8)
        var output = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        _ = crypto_auth_hmacsha256(&output, input, UInt64(input.count), key)
        return output
    }
}
