import COpenSSL

/// A digest libcrypto implements, fetched once by name (`EVP_MD_fetch`): the one checked path for
/// every hash and HMAC here. Immutable after it is made and usable by many threads at once, hence
/// `@unchecked Sendable`.
final class MessageDigest: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Bytes in one digest.
    let length: Int

    /// `.unsupportedDigest` when libcrypto has no digest of that name.
    init(named name: UnsafePointer<CChar>) throws(SystemCryptoError) {
        defer { ERR_clear_error() }
        guard let fetched = EVP_MD_fetch(nil, name, nil) else { throw .unsupportedDigest(CName.text(name)) }
        let size = EVP_MD_get_size(fetched)
        guard size > 0 else {
            EVP_MD_free(fetched)
            throw .unsupportedDigest(CName.text(name))
        }
        pointer = fetched
        length = Int(size)
    }

    deinit { EVP_MD_free(pointer) }

    /// SHA-1 and SHA-256, fetched on first use; a failed fetch is kept as its error.
    static let sha1 = Result { () throws(SystemCryptoError) in try MessageDigest(named: CName.sha1) }
    static let sha256 = Result { () throws(SystemCryptoError) in try MessageDigest(named: CName.sha256) }

    /// The digest of `message`; `.operationFailed` when libcrypto does not give one of the full length.
    func hash(_ message: [UInt8]) throws(SystemCryptoError) -> [UInt8] {
        defer { ERR_clear_error() }
        var output = [UInt8](repeating: 0, count: length)
        var written: UInt32 = 0
        guard EVP_Digest(message, message.count, &output, &written, pointer, nil) == 1, Int(written) == length else {
            throw .operationFailed("EVP_Digest")
        }
        return output
    }

    /// HMAC (RFC 2104) of `message` under `key` with this digest; `.operationFailed` when libcrypto
    /// refuses (a digest HMAC cannot use, a key too long for its `int` length).
    func mac(key: [UInt8], message: [UInt8]) throws(SystemCryptoError) -> [UInt8] {
        defer { ERR_clear_error() }
        guard let keyLength = Int32(exactly: key.count) else { throw .operationFailed("HMAC key of \(key.count) bytes") }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var written: UInt32 = 0
        let answered = key.withUnsafeBytes { key in
            COpenSSL.HMAC(pointer, key.baseAddress, keyLength, message, message.count, &output, &written) != nil
        }
        guard answered, Int(written) == length else { throw .operationFailed("HMAC") }
        return Array(output.prefix(length))
    }
}
