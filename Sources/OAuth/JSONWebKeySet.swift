import Foundation
import Secrets
import SystemCrypto

/// A JWKS document (RFC 7517): the public keys an issuer signs id_tokens with.
public struct JSONWebKeySet: Sendable, Codable, Equatable {
    public var keys: [JSONWebKey]
    public init(keys: [JSONWebKey]) { self.keys = keys }

    /// The key for a JWS header: by `kid` when the header names one, else the only key of the right type.
    func key(id: String?, keyType: String) -> JSONWebKey? {
        let candidates = keys.filter { $0.kty == keyType && ($0.use == nil || $0.use == "sig") }
        if let id { return candidates.first { $0.kid == id } }
        return candidates.count == 1 ? candidates[0] : nil
    }
}

/// One public key of a JWKS; RSA (`n`, `e`) or EC P-256 (`x`, `y`).
public struct JSONWebKey: Sendable, Codable, Equatable {
    public var kty: String
    public var kid: String?
    public var use: String?
    public var alg: String?
    public var n: String?
    public var e: String?
    public var crv: String?
    public var x: String?
    public var y: String?

    public init(
        kty: String, kid: String? = nil, use: String? = nil, alg: String? = nil, n: String? = nil,
        e: String? = nil, crv: String? = nil, x: String? = nil, y: String? = nil
    ) {
        self.kty = kty
        self.kid = kid
        self.use = use
        self.alg = alg
        self.n = n
        self.e = e
        self.crv = crv
        self.x = x
        self.y = y
    }

    /// The JWK of a P-256 public key (for tests and a local signer).
    public init(p256 key: P256.PublicKey, kid: String) {
        self.init(
            kty: "EC", kid: kid, use: "sig", alg: "ES256", crv: "P-256", x: Base64URL.encode(key.x),
            y: Base64URL.encode(key.y))
    }

    /// Checks an RS256 signature (RSASSA-PKCS1-v1_5 with SHA-256).
    func verifiesRS256(_ signature: [UInt8], over input: [UInt8]) -> Bool {
        guard kty == "RSA", let n = n.flatMap(Base64URL.decode), let e = e.flatMap(Base64URL.decode),
            let key = try? RSA.PublicKey(modulus: n, exponent: e)
        else { return false }
        return key.isValidPKCS1v15SHA256Signature(signature, for: input)
    }

    /// Checks an ES256 signature (raw `r ‖ s`, RFC 7518 §3.4). Either S is taken from another
    /// issuer (most sign high-S half the time, see `LowS`); replay is refused by the token's claims.
    func verifiesES256(_ signature: [UInt8], over input: [UInt8]) -> Bool {
        guard kty == "EC", crv == "P-256", let x = x.flatMap(Base64URL.decode), let y = y.flatMap(Base64URL.decode),
            let key = try? P256.PublicKey(x: x, y: y)
        else { return false }
        return key.isValidSignature(rawRS: signature, for: input)
    }
}
