import COpenSSL
import Synchronization

/// SHA-256 signatures by one private key, with the libcrypto objects they need set up once.
///
/// Setting a signature up (`EVP_DigestSignInit_ex`, `EVP_PKEY_sign_init`, the one-shot `SHA256()`)
/// looks the algorithm up in libcrypto's provider store under a lock every thread shares: under
/// load that was a quarter of an ES256 signature (a Descope `refresh` signs one each time). So the
/// digest is fetched once and `EVP_PKEY_sign` contexts are kept between signatures; a context is
/// used by one thread at a time: a signer takes an idle one, or makes one, and gives it back.
final class SigningContexts: @unchecked Sendable {
    private let key: LibcryptoKey
    /// The fetched SHA-256 implementation: immutable, usable by many threads at once.
    private let sha256: MessageDigest
    private let idle = Mutex<[Context]>([])
    /// Contexts kept between signatures: one per thread that signs at once, within reason.
    private let idleLimit = 16

    init(key: LibcryptoKey) throws(SystemCryptoError) {
        self.key = key
        sha256 = try MessageDigest.sha256.get()
    }

    deinit {
        idle.withLock { contexts in
            for context in contexts { EVP_PKEY_CTX_free(context.pointer) }
        }
    }

    /// The key's signature over SHA-256(`message`) (for ECDSA, a DER `ECDSA-Sig-Value`).
    func sign(_ message: [UInt8]) throws(SystemCryptoError) -> [UInt8] {
        defer { ERR_clear_error() }
        let digest = try sha256.hash(message)
        let context: OpaquePointer
        if let kept = idle.withLock({ $0.popLast() }) { context = kept.pointer } else { context = try makeContext() }
        var length = 0
        guard EVP_PKEY_sign(context, nil, &length, digest, digest.count) == 1 else {
            EVP_PKEY_CTX_free(context)
            throw .operationFailed("EVP_PKEY_sign")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_sign(context, &signature, &length, digest, digest.count) == 1 else {
            EVP_PKEY_CTX_free(context)
            throw .operationFailed("EVP_PKEY_sign")
        }
        let keptAgain = idle.withLock { contexts in
            guard contexts.count < idleLimit else { return false }
            contexts.append(Context(pointer: context))
            return true
        }
        if !keptAgain { EVP_PKEY_CTX_free(context) }
        return Array(signature.prefix(length))
    }

    /// An idle context. Held by one signer at a time, hence `@unchecked Sendable`.
    private struct Context: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private func makeContext() throws(SystemCryptoError) -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw .operationFailed("EVP_PKEY_CTX_new_from_pkey")
        }
        guard EVP_PKEY_sign_init(context) == 1 else {
            EVP_PKEY_CTX_free(context)
            throw .operationFailed("EVP_PKEY_sign_init")
        }
        return context
    }
}
