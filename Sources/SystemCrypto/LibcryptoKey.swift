import COpenSSL

/// One libcrypto key (`EVP_PKEY`), freed with its owner. A key is not changed after it is made, and
/// libcrypto allows one key to be used by many threads at once for signing and verifying (each
/// operation has its own context), hence `@unchecked Sendable`.
final class LibcryptoKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    /// `selection` for `EVP_PKEY_fromdata`: `OSSL_KEYMGMT_SELECT_*` (the `EVP_PKEY_PUBLIC_KEY` and
    /// `EVP_PKEY_KEYPAIR` macros are expressions Swift does not import).
    enum Part: Int32 {
        case publicKey = 0x86  // domain parameters | other parameters | public key
        case keyPair = 0x87  // … | private key
    }

    /// A key of `type` ("EC", "RSA") from named parameters, as `EVP_PKEY_fromdata` takes them.
    static func fromParameters(
        type: UnsafePointer<CChar>, part: Part, _ push: (OpaquePointer) -> Bool
    ) throws(SystemCryptoError) -> LibcryptoKey {
        defer { ERR_clear_error() }
        guard let builder = OSSL_PARAM_BLD_new() else { throw .operationFailed("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard push(builder), let parameters = OSSL_PARAM_BLD_to_param(builder) else {
            throw .invalidKey("the key's parameters could not be encoded")
        }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else {
            throw .operationFailed("no \(CName.text(type)) key support in libcrypto")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1, EVP_PKEY_fromdata(context, &key, part.rawValue, parameters) == 1,
            let key
        else { throw .invalidKey("libcrypto refused the \(CName.text(type)) key") }
        return LibcryptoKey(key)
    }

    /// A new key from `EVP_PKEY_generate`, after `configure` has set the context up (curve, size).
    static func generate(type: UnsafePointer<CChar>, _ configure: (OpaquePointer) -> Bool) throws(SystemCryptoError)
        -> LibcryptoKey
    {
        defer { ERR_clear_error() }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else {
            throw .operationFailed("no \(CName.text(type)) key support in libcrypto")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, configure(context), EVP_PKEY_generate(context, &key) == 1, let key
        else { throw .operationFailed("\(CName.text(type)) key generation failed") }
        return LibcryptoKey(key)
    }

    /// A big-number parameter of the key ("n", "e", "qx", "priv"), big-endian, left-padded to `width`
    /// bytes when given (the bytes of a private value are wiped from libcrypto's copy).
    func bigNumber(_ name: String, width: Int? = nil) throws(SystemCryptoError) -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pointer, name, &number) == 1, let number else {
            ERR_clear_error()
            throw .operationFailed("the key has no \(name)")
        }
        defer { BN_clear_free(number) }
        let count = width ?? Int((BN_num_bits(number) + 7) / 8)
        var bytes = [UInt8](repeating: 0, count: count)
        guard BN_bn2binpad(number, &bytes, Int32(count)) == Int32(count) else {
            throw .operationFailed("\(name) does not fit in \(count) bytes")
        }
        return bytes
    }

    /// `EVP_DigestSign` with SHA-256: an RSA PKCS #1 v1.5 signature (P-256 keys sign through `SigningContexts`).
    func signSHA256(_ message: [UInt8]) throws(SystemCryptoError) -> [UInt8] {
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { throw .operationFailed("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        var length = 0
        guard EVP_DigestSignInit_ex(context, nil, CName.sha256, nil, nil, pointer, nil) == 1,
            EVP_DigestSign(context, nil, &length, message, message.count) == 1
        else { throw .operationFailed("EVP_DigestSign") }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw .operationFailed("EVP_DigestSign")
        }
        return Array(signature.prefix(length))
    }

    /// `EVP_DigestVerify` with SHA-256; false for any failure, malformed signatures included.
    func verifySHA256(_ signature: [UInt8], over message: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        return EVP_DigestVerifyInit_ex(context, nil, CName.sha256, nil, nil, pointer, nil) == 1
            && EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}

/// A libcrypto `BIGNUM` from big-endian bytes, cleared and freed with its owner. Parameter builders
/// keep a reference to it until `OSSL_PARAM_BLD_to_param`, so it must outlive that call.
final class BigNumber {
    let pointer: OpaquePointer

    init(_ bytes: [UInt8]) throws(SystemCryptoError) {
        guard let pointer = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw .operationFailed("BN_bin2bn") }
        self.pointer = pointer
    }

    deinit { BN_clear_free(pointer) }
}

/// Bytes for an octet-string parameter, in memory of their own: a parameter builder keeps the pointer
/// it is given until `OSSL_PARAM_BLD_to_param`, which a Swift array's lent buffer would not outlive.
final class ParameterBytes {
    let buffer: UnsafeMutableRawBufferPointer

    init(_ bytes: [UInt8]) {
        buffer = .allocate(byteCount: bytes.count, alignment: 1)
        buffer.copyBytes(from: bytes)
    }

    deinit {
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        buffer.deallocate()
    }
}
