import Secrets

/// A compact JWS (RFC 7515 §7.1) read strictly: three parts of base64url with no padding and a
/// canonical last character (`StrictBase64URL`), so its text cannot be padded or re-spelled while
/// its signature still holds. Every token Gatehouse verifies with a public key (id tokens of
/// Apple, Google and OIDC providers; its own ES256 tokens, also held to low-S: `LowS`) is read
/// through it.
struct CompactJWS {
    let header: [UInt8]
    let payload: [UInt8]
    let signature: [UInt8]
    /// The signed bytes: the first two parts as sent.
    let signingInput: [UInt8]

    init?(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = StrictBase64URL.decode(parts[0]),
            let payload = StrictBase64URL.decode(parts[1]), let signature = StrictBase64URL.decode(parts[2])
        else { return nil }
        (self.header, self.payload, self.signature) = (header, payload, signature)
        signingInput = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
    }
}

/// Base64url as JWS writes it (RFC 7515 §2): no `=` padding, only the alphabet, and a last
/// character whose unused bits are zero; anything else is refused rather than read leniently.
public enum StrictBase64URL {
    /// The bytes of `text`, or nil unless `text` is the one encoding of them.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        // `Base64URL.decode` refuses bytes outside the alphabet, a dangling character and a
        // non-canonical last character; it skips `=`, which is refused here.
        guard !text.utf8.contains(UInt8(ascii: "=")) else { return nil }
        return Base64URL.decode(text)
    }
}
