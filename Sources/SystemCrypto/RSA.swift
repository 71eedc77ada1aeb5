import COpenSSL

/// RSASSA-PKCS1-v1_5 with SHA-256: JWS `RS256` (RFC 7518 §3.3) and COSE `-257` (WebAuthn).
public enum RSA {
    /// Moduli below 2048 bits are refused (NIST SP 800-131A); above 16384 is libcrypto's own limit.
    public static let modulusBits = 2048...16384

    /// A public key from its modulus and exponent, big-endian (a JWK's `n` and `e`, decoded).
    public struct PublicKey: Sendable {
        public let modulus: [UInt8]
        public let exponent: [UInt8]
        private let key: LibcryptoKey

        public init(modulus: [UInt8], exponent: [UInt8]) throws(SystemCryptoError) {
            let modulus = Array(modulus.drop { $0 == 0 })
            let exponent = Array(exponent.drop { $0 == 0 })
            let bits = modulus.isEmpty ? 0 : (modulus.count - 1) * 8 + (8 - modulus[0].leadingZeroBitCount)
            guard RSA.modulusBits.contains(bits) else {
                throw .invalidKey("an RSA modulus of \(bits) bits (2048 to 16384 are accepted)")
            }
            guard !exponent.isEmpty, exponent.count <= 8, exponent.last! & 1 == 1, exponent != [1] else {
                throw .invalidKey("an RSA public exponent is odd, above 1 and at most 64 bits")
            }
            self.modulus = modulus
            self.exponent = exponent
            let n = try BigNumber(modulus)
            let e = try BigNumber(exponent)
            key = try withExtendedLifetime((n, e)) { () throws(SystemCryptoError) in
                try LibcryptoKey.fromParameters(type: CName.rsa, part: .publicKey) { builder in
                    OSSL_PARAM_BLD_push_BN(builder, CName.rsaN, n.pointer) == 1
                        && OSSL_PARAM_BLD_push_BN(builder, CName.rsaE, e.pointer) == 1
                }
            }
        }

        fileprivate init(key: LibcryptoKey) throws(SystemCryptoError) {
            modulus = try key.bigNumber(OSSL_PKEY_PARAM_RSA_N)
            exponent = try key.bigNumber(OSSL_PKEY_PARAM_RSA_E)
            self.key = key
        }

        /// True when `signature` is this key's PKCS #1 v1.5 signature over SHA-256(`message`).
        public func isValidPKCS1v15SHA256Signature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
            key.verifySHA256(signature, over: message)
        }
    }

    /// A private key, for signing test tokens as an identity provider would.
    public struct SigningKey: Sendable {
        public let publicKey: PublicKey
        private let key: LibcryptoKey

        /// A new random key of `bits` (e = 65537).
        public init(bits: Int) throws(SystemCryptoError) {
            guard RSA.modulusBits.contains(bits) else { throw .invalidKey("RSA keys of \(bits) bits are not made") }
            key = try LibcryptoKey.generate(type: CName.rsa) { EVP_PKEY_CTX_set_rsa_keygen_bits($0, Int32(bits)) == 1 }
            publicKey = try PublicKey(key: key)
        }

        /// The PKCS #1 v1.5 signature over SHA-256(`message`).
        public func pkcs1v15SHA256Signature(for message: [UInt8]) throws(SystemCryptoError) -> [UInt8] {
            try key.signSHA256(message)
        }
    }
}
