internal import CSodium
import Foundation

/// JSON Web Tokens signed with HMAC-SHA-256 (RFC 7519, `alg: HS256`) under one 32-byte key: the
/// shape PocketBase's SDKs read their `exp` and ids from. Only the signature is checked here; the
/// caller decodes the payload and checks its claims (expiry, type).
public struct HS256Token: Sendable {
    private static let header = Array(Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)).utf8)
    /// HMAC's state after the key's inner and outer pads (RFC 2104): every token signed or checked
    /// starts from a copy, not from the key (two hash blocks fewer per token).
    private let keyed: crypto_auth_hmacsha256_state

    /// Fails when `key` is not exactly 32 bytes.
    public init(key: [UInt8]) throws(SecretsError) {
        guard key.count == Int(crypto_auth_hmacsha256_KEYBYTES) else { throw .invalidKeyLength(key.count) }
        self.init(validKey: key)
    }

    /// A signer under a key derived from the server key for `context` (always the right length).
    public init(derivedFrom keyedHash: KeyedHash, context: String) {
        self.init(validKey: keyedHash.derivedKey(for: context))
    }

    private init(validKey key: [UInt8]) {
        Sodium.ready()
        var state = crypto_auth_hmacsha256_state()
        _ = crypto_auth_hmacsha256_init(&state, key, key.count)
        keyed = state
    }

    /// `header.payload.signature` for the payload's JSON bytes.
    public func sign(payload: Data) -> String {
        var token = Self.header
        token.append(UInt8(ascii: "."))
        Base64URL.encode(Array(payload), appendingTo: &token)
        let signature = mac(token[...])
        token.append(UInt8(ascii: "."))
        Base64URL.encode(signature, appendingTo: &token)
        return String(decoding: token, as: UTF8.self)
    }

    /// The payload's JSON bytes when `token` is an HS256 token signed with this key, else nil
    /// (another algorithm, another key, an altered part, or not a token at all). Read as bytes:
    /// every authenticated API call checks one.
    public func verify(_ token: String) -> Data? {
        let bytes = Array(token.utf8)[...]
        guard let first = bytes.firstIndex(of: UInt8(ascii: ".")),
            let second = bytes[(first + 1)...].firstIndex(of: UInt8(ascii: ".")),
            !bytes[(second + 1)...].contains(UInt8(ascii: ".")),
            bytes[..<first].elementsEqual(Self.header),
            let signature = Base64URL.decode(utf8: bytes[(second + 1)...]),
            signature.count == Int(crypto_auth_hmacsha256_BYTES),
            let payload = Base64URL.decode(utf8: bytes[(first + 1)..<second])
        else { return nil }
        let expected = mac(bytes[..<second])
        return sodium_memcmp(expected, signature, expected.count) == 0 ? Data(payload) : nil
    }

    private func mac(_ signingInput: ArraySlice<UInt8>) -> [UInt8] {
        var state = keyed
        var output = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        signingInput.withUnsafeBufferPointer { input in
            _ = crypto_auth_hmacsha256_update(&state, input.baseAddress, UInt64(input.count))
        }
        _ = crypto_auth_hmacsha256_final(&state, &output)
        return output
    }
}
