import COpenSSL

/// ECDSA over NIST P-256 with SHA-256: JWS `ES256` (RFC 7518 §3.4) and COSE `-7` (WebAuthn).
public enum P256 {
    /// Bytes in one coordinate, in the private scalar, and in each half of a raw signature.
    static let width = 32

    /// A public key: the point (x, y), each 32 bytes big-endian, checked to lie on the curve.
    public struct PublicKey: Sendable {
        public let x: [UInt8]
        public let y: [UInt8]
        let key: LibcryptoKey

        public init(x: [UInt8], y: [UInt8]) throws(SystemCryptoError) {
            guard x.count == width, y.count == width else {
                throw .invalidKey("a P-256 coordinate is 32 bytes")
            }
            self.x = x
            self.y = y
            key = try P256.key(point: [0x04] + x + y, scalar: nil)
        }

        init(key: LibcryptoKey) throws(SystemCryptoError) {
            x = try key.bigNumber(OSSL_PKEY_PARAM_EC_PUB_X, width: width)
            y = try key.bigNumber(OSSL_PKEY_PARAM_EC_PUB_Y, width: width)
            self.key = key
        }

        /// A JWS signature: `r ‖ s`, 64 bytes.
        public func isValidSignature(rawRS signature: [UInt8], for message: [UInt8]) -> Bool {
            guard let der = P256.der(fromRaw: signature) else { return false }
            return key.verifySHA256(der, over: message)
        }

        /// An ASN.1 DER `ECDSA-Sig-Value`, as WebAuthn authenticators sign; non-canonical encodings fail.
        public func isValidSignature(der signature: [UInt8], for message: [UInt8]) -> Bool {
            key.verifySHA256(signature, over: message)
        }
    }

    /// A private key. Its scalar lives in libcrypto's memory, which is wiped when the key is freed.
    public struct SigningKey: Sendable {
        public let publicKey: PublicKey
        private let key: LibcryptoKey
        private let contexts: SigningContexts

        /// A new random key.
        public init() throws(SystemCryptoError) {
            key = try LibcryptoKey.generate(type: CName.ec) { EVP_PKEY_CTX_set_group_name($0, CName.p256) == 1 }
            publicKey = try PublicKey(key: key)
            contexts = try SigningContexts(key: key)
        }

        /// From the 32-byte big-endian scalar (as the `secrets` table keeps it); 0 and ≥ n are refused.
        public init(rawScalar: [UInt8]) throws(SystemCryptoError) {
            guard rawScalar.count == width else { throw .invalidKey("a P-256 private key is 32 bytes") }
            let point = try P256.publicPoint(of: rawScalar)
            key = try P256.key(point: point, scalar: rawScalar)
            publicKey = try PublicKey(key: key)
            contexts = try SigningContexts(key: key)
        }

        /// The 32-byte scalar, for storing the key.
        public var rawScalar: [UInt8] {
            get throws(SystemCryptoError) { try key.bigNumber(OSSL_PKEY_PARAM_PRIV_KEY, width: width) }
        }

        /// A signature over SHA-256(`message`) as JWS wants it: `r ‖ s`, 64 bytes.
        public func signature(for message: [UInt8]) throws(SystemCryptoError) -> [UInt8] {
            guard let raw = P256.raw(fromDER: try contexts.sign(message)) else {
                throw .operationFailed("libcrypto's ECDSA signature did not decode")
            }
            return raw
        }
    }

    /// A key from an uncompressed point and, for a key pair, its scalar. libcrypto checks that the
    /// point lies on the curve.
    private static func key(point: [UInt8], scalar: [UInt8]?) throws(SystemCryptoError) -> LibcryptoKey {
        let secret = try scalar.map { bytes throws(SystemCryptoError) in try BigNumber(bytes) }
        let publicPoint = ParameterBytes(point)
        return try withExtendedLifetime((secret, publicPoint)) { () throws(SystemCryptoError) in
            try LibcryptoKey.fromParameters(type: CName.ec, part: secret == nil ? .publicKey : .keyPair) { builder in
                let pub = publicPoint.buffer
                guard OSSL_PARAM_BLD_push_utf8_string(builder, CName.group, CName.prime256v1, 0) == 1,
                    OSSL_PARAM_BLD_push_octet_string(builder, CName.publicKey, pub.baseAddress, pub.count) == 1
                else { return false }
                guard let secret else { return true }
                return OSSL_PARAM_BLD_push_BN(builder, CName.privateKey, secret.pointer) == 1
            }
        }
    }

    /// scalar × G, uncompressed (`04 ‖ x ‖ y`): libcrypto does not derive the public half from the
    /// private scalar when a key is made from parameters.
    private static func publicPoint(of scalar: [UInt8]) throws(SystemCryptoError) -> [UInt8] {
        defer { ERR_clear_error() }
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else {
            throw .operationFailed("no P-256 in libcrypto")
        }
        defer { EC_GROUP_free(group) }
        let secret = try BigNumber(scalar)
        guard BN_is_zero(secret.pointer) == 0, BN_cmp(secret.pointer, EC_GROUP_get0_order(group)) < 0 else {
            throw .invalidKey("a P-256 private key is between 1 and the group order")
        }
        guard let point = EC_POINT_new(group) else { throw .operationFailed("EC_POINT_new") }
        defer { EC_POINT_free(point) }
        var bytes = [UInt8](repeating: 0, count: 1 + 2 * width)
        guard EC_POINT_mul(group, point, secret.pointer, nil, nil, nil) == 1,
            EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &bytes, bytes.count, nil) == bytes.count
        else { throw .operationFailed("deriving the P-256 public key") }
        return bytes
    }

    /// `r ‖ s` → DER, or nil when the raw form is not 64 bytes.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 2 * width, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        guard let r = BN_bin2bn(raw, Int32(width), nil) else { return nil }
        guard let s = raw.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + width, Int32(width), nil) }) else {
            BN_free(r)
            return nil
        }
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }

    /// DER → `r ‖ s`, or nil when the DER does not decode or a half is wider than 32 bytes.
    static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        let decoded = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let decoded else {
            ERR_clear_error()
            return nil
        }
        defer { ECDSA_SIG_free(decoded) }
        var raw = [UInt8](repeating: 0, count: 2 * width)
        let fits = raw.withUnsafeMutableBufferPointer { out in
            BN_bn2binpad(ECDSA_SIG_get0_r(decoded), out.baseAddress, Int32(width)) == Int32(width)
                && BN_bn2binpad(ECDSA_SIG_get0_s(decoded), out.baseAddress! + width, Int32(width)) == Int32(width)
        }
        return fits ? raw : nil
    }
}
