import SystemCrypto

/// A credential public key as COSE_Key (RFC 9053), of the two algorithms Gatehouse accepts:
/// ES256 (EC2 on P-256, COSE -7) and RS256 (RSASSA-PKCS1-v1_5 with SHA-256, COSE -257) — the ones
/// the registration options offer, and what every platform authenticator can make.
public enum COSEKey: Sendable, Equatable {
    case es256(x: [UInt8], y: [UInt8])
    case rs256(modulus: [UInt8], exponent: [UInt8])

    /// COSE algorithm identifiers (IANA "COSE Algorithms").
    public enum Algorithm: Int, Sendable, CaseIterable {
        case es256 = -7
        case rs256 = -257
    }

    public var algorithm: Algorithm {
        switch self {
        case .es256: .es256
        case .rs256: .rs256
        }
    }

    /// Labels (RFC 9052 §7.1, RFC 9053 §7.1.1, RFC 8230 §4).
    private static let kty = 1, alg = 3, crv = -1, ecX = -2, ecY = -3, rsaN = -1, rsaE = -2
    private static let ec2 = 2, rsa = 3, p256 = 1

    /// Reads a COSE_Key; refuses other key types, curves and algorithms, and wrong sizes.
    public init(_ key: CBOR) throws(WebAuthnError) {
        guard case .map = key, let type = key[label: Self.kty]?.int, let alg = key[label: Self.alg]?.int else {
            throw .malformed("the credential public key lacks kty or alg")
        }
        switch (type, Algorithm(rawValue: alg)) {
        case (Self.ec2, .es256):
            guard key[label: Self.crv]?.int == Self.p256 else { throw .unsupportedAlgorithm("EC2 on a curve other than P-256") }
            guard let x = key[label: Self.ecX]?.byteString, let y = key[label: Self.ecY]?.byteString, x.count == 32,
                y.count == 32
            else { throw .malformed("the P-256 key's coordinates are not 32 bytes each") }
            self = .es256(x: x, y: y)
        case (Self.rsa, .rs256):
            guard let n = key[label: Self.rsaN]?.byteString, let e = key[label: Self.rsaE]?.byteString,
                (256...1024).contains(n.count), (1...8).contains(e.count)
            else { throw .malformed("the RSA key's modulus is not 2048 to 8192 bits") }
            self = .rs256(modulus: n, exponent: e)
        default:
            throw .unsupportedAlgorithm("key type \(type) with algorithm \(alg) (ES256 and RS256 are accepted)")
        }
    }

    /// Reads a stored COSE_Key's bytes.
    public init(bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBOR
        do { value = try CBORDecoder.decode(bytes) } catch { throw .malformed("credential public key: \(error)") }
        try self.init(value)
    }

    /// Whether `signature` (ASN.1 DER for ES256, as WebAuthn sends it; PKCS#1 v1.5 for RS256) is
    /// this key's over `message`. A key the crypto library refuses (a point off the curve) verifies
    /// nothing.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        switch self {
        case .es256(let x, let y):
            guard let key = try? P256.PublicKey(x: x, y: y) else { return false }
            return key.isValidSignature(der: signature, for: message)
        case .rs256(let modulus, let exponent):
            guard let key = try? RSA.PublicKey(modulus: modulus, exponent: exponent) else { return false }
            return key.isValidPKCS1v15SHA256Signature(signature, for: message)
        }
    }
}
