/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    /// The 32-byte digest of `bytes`; throws when libcrypto fails, never answers a blank digest.
    public static func digest(_ bytes: some Sequence<UInt8>) throws(SystemCryptoError) -> [UInt8] {
        try MessageDigest.sha256.get().hash(Array(bytes))
    }
}

/// HMAC (RFC 2104) over the hashes Gatehouse needs; throws when libcrypto fails.
public enum HMAC {
    /// HMAC-SHA1, 20 bytes: what authenticator apps compute for RFC 6238 codes.
    public static func sha1(key: [UInt8], message: [UInt8]) throws(SystemCryptoError) -> [UInt8] {
        try MessageDigest.sha1.get().mac(key: key, message: message)
    }

    /// HMAC-SHA256, 32 bytes.
    public static func sha256(key: [UInt8], message: [UInt8]) throws(SystemCryptoError) -> [UInt8] {
        try MessageDigest.sha256.get().mac(key: key, message: message)
    }
}
