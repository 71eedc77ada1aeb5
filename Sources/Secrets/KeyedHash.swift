internal import CSodium

/// BLAKE2b keyed with a 32-byte server key (`crypto_generichash`). Codes, link tokens and session
/// tokens are stored only as this hash: a leaked database copy cannot be replayed, and without the
/// key a 6-digit code cannot be brute-forced offline from its hash.
public struct KeyedHash: Sendable {
    /// The key length Gatehouse uses (libsodium's recommended `crypto_generichash_KEYBYTES`).
    public static let keyLength = 32
    private static let outputLength = 32

    private let key: [UInt8]

    /// Fails when `key` is not exactly 32 bytes.
    public init(key: [UInt8]) throws(SecretsError) {
        guard key.count == Self.keyLength else { throw .invalidKeyLength(key.count) }
        Sodium.ready()
        self.key = key
    }

    /// The keyed hash of the string's UTF-8 bytes as 64 lower-case hex characters.
    public func hex(_ string: String) -> String {
        let input = Array(string.utf8)
        var output = [UInt8](repeating: 0, count: Self.outputLength)
        // Cannot fail: output and key lengths are within libsodium's bounds (checked in init).
        _ = crypto_generichash(&output, output.count, input, UInt64(input.count), key, key.count)
        return Hex.encode(output)
    }

    /// A 32-byte key for another purpose, derived from this one (BLAKE2b keyed with the server key
    /// over `context`, a PRF), so one key file serves several independent uses.
    public func derivedKey(for context: String) -> [UInt8] {
        let input = Array(("gatehouse derived key: " + context).utf8)
        var output = [UInt8](repeating: 0, count: Self.keyLength)
        _ = crypto_generichash(&output, output.count, input, UInt64(input.count), key, key.count)
        return output
    }

    /// Compares two strings without an early exit on the first differing byte. Lengths are not
    /// secret (hashes are fixed-length), so different lengths answer false at once.
    public static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        constantTimeEquals(Array(lhs.utf8), Array(rhs.utf8))
    }

    /// Byte-array form of `constantTimeEquals(_:_:)`: the one constant-time compare (password
    /// verifiers, passkey challenges, authenticator codes).
    public static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        Sodium.ready()
        return sodium_memcmp(lhs, rhs, lhs.count) == 0
    }
}
