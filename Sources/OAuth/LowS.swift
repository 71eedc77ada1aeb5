/// ECDSA P-256 signatures in their low-S form (s ≤ n/2, as Bitcoin's BIP 62 and libsecp256k1
/// require): for every signature (r, s) the twin (r, n − s) verifies too, so a verifier that takes
/// both lets a token be re-spelled without its key. Gatehouse signs its own ES256 tokens low-S and
/// refuses their high-S twins (`ES256Signer`). Others' signatures are taken either way — OpenSSL,
/// BoringSSL (Chromium's authenticators) and Python's `cryptography` sign high-S half the time,
/// and neither JWS nor WebAuthn asks otherwise — so an id token's replay is refused by its claims
/// (`IDToken.replayKey`) and a passkey assertion answers a single-use challenge.
enum LowS {
    /// P-256's group order n, big-endian.
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51
    ]
    /// ⌊n / 2⌋, big-endian.
    static let halfOrder: [UInt8] = [
        0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0x00, 0x00, 0x00, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xDE, 0x73, 0x7D, 0x56, 0xD3, 0x8B, 0xCF, 0x42, 0x79, 0xDC, 0xE5, 0x61, 0x7E, 0x31, 0x92, 0xA8
    ]

    /// True for a raw `r ‖ s` signature (64 bytes) whose s is at most n/2.
    static func isLow(_ signature: [UInt8]) -> Bool {
        guard signature.count == 64 else { return false }
        // Big-endian and of equal length: bytewise order is numeric order.
        return !halfOrder.lexicographicallyPrecedes(signature[32...])
    }

    /// `signature` with s replaced by n − s when it is high: the same signature, in its low form.
    static func lowered(_ signature: [UInt8]) -> [UInt8] {
        guard signature.count == 64, !isLow(signature) else { return signature }
        var s = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in (0..<32).reversed() {
            let difference = Int(order[index]) - Int(signature[32 + index]) - borrow
            s[index] = UInt8(truncatingIfNeeded: difference < 0 ? difference + 256 : difference)
            borrow = difference < 0 ? 1 : 0
        }
        return Array(signature[..<32]) + s
    }
}
