import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import SystemCrypto
#endif

/// The Standard Webhooks signature (https://www.standardwebhooks.com): `v1,` and the base64 of
/// HMAC-SHA256, keyed with the bytes of a `whsec_<base64>` secret, over `{id}.{timestamp}.{body}`.
/// One computation for both sides: Gatehouse's sender signs with it, `WebhookVerifier` checks with it.
public enum WebhookSignature {
    /// The key inside a `whsec_` secret (the prefix is optional, as the spec's libraries take it);
    /// nil when the rest is not base64 or holds no bytes.
    public static func key(of secret: String) -> [UInt8]? {
        let encoded = secret.hasPrefix("whsec_") ? String(secret.dropFirst(6)) : secret
        guard let key = Data(base64Encoded: encoded), !key.isEmpty else { return nil }
        return Array(key)
    }

    /// `v1,<base64 signature>` of `body` sent as message `id` at `timestamp` (Unix seconds).
    public static func v1(key: [UInt8], id: String, timestamp: Int, body: [UInt8]) throws -> String {
        "v1," + Data(try mac(key: key, message: Array("\(id).\(timestamp).".utf8) + body)).base64EncodedString()
    }

    /// HMAC-SHA256 from CryptoKit on Apple platforms and from the system's libcrypto elsewhere.
    static func mac(key: [UInt8], message: [UInt8]) throws -> [UInt8] {
        #if canImport(CryptoKit)
            Array(HMAC<CryptoKit.SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
        #else
            try SystemCrypto.HMAC.sha256(key: key, message: message)
        #endif
    }
}
