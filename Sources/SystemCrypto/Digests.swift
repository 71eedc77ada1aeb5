import COpenSSL

/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        let input = Array(bytes)
        var output = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        input.withUnsafeBufferPointer { data in
            output.withUnsafeMutableBufferPointer { out in
                _ = COpenSSL.SHA256(data.baseAddress, data.count, out.baseAddress)
            }
        }
        return output
    }
}

/// HMAC (RFC 2104) over the hashes Gatehouse needs.
public enum HMAC {
    /// HMAC-SHA1, 20 bytes: what authenticator apps compute for RFC 6238 codes.
    public static func sha1(key: [UInt8], message: [UInt8]) -> [UInt8] {
        mac(EVP_sha1(), length: Int(SHA_DIGEST_LENGTH), key: key, message: message)
    }

    /// HMAC-SHA256, 32 bytes.
    public static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        mac(EVP_sha256(), length: Int(SHA256_DIGEST_LENGTH), key: key, message: message)
    }

    private static func mac(_ digest: OpaquePointer?, length: Int, key: [UInt8], message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: length)
        var written: UInt32 = 0
        key.withUnsafeBytes { key in
            message.withUnsafeBufferPointer { message in
                output.withUnsafeMutableBufferPointer { out in
                    // HMAC takes the key length as an int; keys here are a few dozen bytes.
                    _ = COpenSSL.HMAC(
                        digest, key.baseAddress, Int32(key.count), message.baseAddress, message.count,
                        out.baseAddress, &written)
                }
            }
        }
        precondition(Int(written) == length, "HMAC wrote \(written) bytes, expected \(length)")
        return output
    }
}
