import Secrets
import SystemCrypto
import Testing

/// libcrypto through SystemCrypto, checked against the specifications' own examples: a fixed vector
/// proves the byte layouts (raw `r ‖ s`, big-endian coordinates, the signing input) that a sign-then-verify
/// round trip alone would not.
@Suite struct SystemCryptoTests {
    /// The compact JWS signing input of RFC 7515 §A.2 and §A.3 (the header differs; the payload is shared).
    static let payload = "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"

    private static func bytes(_ base64URL: String) -> [UInt8] { Base64URL.decode(base64URL)! }

    // MARK: Digests

    @Test func sha256MatchesFIPS180Examples() throws {
        #expect(Hex.encode(try SHA256.digest("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.encode(try SHA256.digest([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func hmacSHA1MatchesRFC2202() throws {
        let key = [UInt8](repeating: 0x0b, count: 20)
        #expect(
            Hex.encode(try HMAC.sha1(key: key, message: Array("Hi There".utf8))) == "b617318655057264e28bc0b6fb378c8ef146be00")
        // A key longer than the block is hashed first (test case 6).
        let long = [UInt8](repeating: 0xaa, count: 80)
        let message = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        #expect(Hex.encode(try HMAC.sha1(key: long, message: message)) == "aa4ae5e15272d00e95705637ce8a3b55ed402112")
    }

    @Test func hmacSHA256MatchesRFC4231() throws {
        let key = [UInt8](repeating: 0x0b, count: 20)
        #expect(
            Hex.encode(try HMAC.sha256(key: key, message: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    }

    // MARK: P-256

    /// RFC 7515 §A.3: the example key and its ES256 signature.
    static let rfcX = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    static let rfcY = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
    static let rfcD = "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"
    static let rfcES256 = "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    @Test func es256VerifiesRFC7515Example() throws {
        let key = try P256.PublicKey(x: Self.bytes(Self.rfcX), y: Self.bytes(Self.rfcY))
        let input = Array(("eyJhbGciOiJFUzI1NiJ9." + Self.payload).utf8)
        #expect(key.isValidSignature(rawRS: Self.bytes(Self.rfcES256), for: input))
        var tampered = Self.bytes(Self.rfcES256)
        tampered[63] ^= 1
        #expect(!key.isValidSignature(rawRS: tampered, for: input))
        #expect(!key.isValidSignature(rawRS: Self.bytes(Self.rfcES256), for: input + [0x2e]))
        #expect(!key.isValidSignature(rawRS: Array(Self.bytes(Self.rfcES256).prefix(63)), for: input))
    }

    @Test func thePrivateScalarGivesThePublishedPublicKey() throws {
        let key = try P256.SigningKey(rawScalar: Self.bytes(Self.rfcD))
        #expect(Base64URL.encode(key.publicKey.x) == Self.rfcX)
        #expect(Base64URL.encode(key.publicKey.y) == Self.rfcY)
        #expect(try key.rawScalar == Self.bytes(Self.rfcD))
    }

    @Test func signaturesVerifyInBothEncodingsAndOnlyForTheirMessage() throws {
        let key = try P256.SigningKey()
        let message = Array("the signing input".utf8)
        let raw = try key.signature(for: message)
        #expect(raw.count == 64)
        #expect(key.publicKey.isValidSignature(rawRS: raw, for: message))
        #expect(!key.publicKey.isValidSignature(rawRS: raw, for: Array("another input".utf8)))
        #expect(!(try P256.SigningKey()).publicKey.isValidSignature(rawRS: raw, for: message))
        // The same signature as WebAuthn authenticators encode it: SEQUENCE { INTEGER r, INTEGER s }.
        let der = Self.der(raw)
        #expect(key.publicKey.isValidSignature(der: der, for: message))
        #expect(!key.publicKey.isValidSignature(der: raw, for: message))
        #expect(!key.publicKey.isValidSignature(der: der + [0], for: message))
        // A stored key signs again with the same public half.
        let again = try P256.SigningKey(rawScalar: try key.rawScalar)
        #expect(key.publicKey.isValidSignature(rawRS: try again.signature(for: message), for: message))
    }

    /// One key shared by many signers at once (a server's JWT signer): the kept signing contexts
    /// are never used by two at a time, so every signature verifies for its own message.
    @Test func manySignersAtOnceEachGetTheirOwnValidSignature() async throws {
        let key = try P256.SigningKey()
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let message = Array("message \(index)".utf8)
                    let signature = try key.signature(for: message)
                    return key.publicKey.isValidSignature(rawRS: signature, for: message)
                        && !key.publicKey.isValidSignature(rawRS: signature, for: Array("message \(index + 1)".utf8))
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 })
    }

    @Test func refusesPointsOffTheCurveAndScalarsOutOfRange() throws {
        var y = Self.bytes(Self.rfcY)
        y[31] ^= 1
        #expect(throws: SystemCryptoError.self) { try P256.PublicKey(x: Self.bytes(Self.rfcX), y: y) }
        #expect(throws: SystemCryptoError.self) { try P256.PublicKey(x: [1, 2, 3], y: Self.bytes(Self.rfcY)) }
        #expect(throws: SystemCryptoError.self) { try P256.SigningKey(rawScalar: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: SystemCryptoError.self) { try P256.SigningKey(rawScalar: [UInt8](repeating: 0xff, count: 32)) }
        #expect(throws: SystemCryptoError.self) { try P256.SigningKey(rawScalar: [1]) }
    }

    // MARK: RSA

    /// RFC 7515 §A.2: the example modulus (e = 65537) and its RS256 signature.
    static let rfcN =
        "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMs"
        + "D1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdV"
        + "MTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"
    static let rfcRS256 =
        "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZ"
        + "cAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-"
        + "eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"

    @Test func rs256VerifiesRFC7515Example() throws {
        let key = try RSA.PublicKey(modulus: Self.bytes(Self.rfcN), exponent: [1, 0, 1])
        let input = Array(("eyJhbGciOiJSUzI1NiJ9." + Self.payload).utf8)
        #expect(key.isValidPKCS1v15SHA256Signature(Self.bytes(Self.rfcRS256), for: input))
        var tampered = Self.bytes(Self.rfcRS256)
        tampered[0] ^= 1
        #expect(!key.isValidPKCS1v15SHA256Signature(tampered, for: input))
        #expect(!key.isValidPKCS1v15SHA256Signature([], for: input))
        // A leading zero byte in the modulus (as some JWKS encoders write it) is the same key.
        let padded = try RSA.PublicKey(modulus: [0] + Self.bytes(Self.rfcN), exponent: [0, 1, 0, 1])
        #expect(padded.isValidPKCS1v15SHA256Signature(Self.bytes(Self.rfcRS256), for: input))
    }

    @Test func rsaSigningKeysSignWhatTheirPublicHalfVerifies() throws {
        let key = try RSA.SigningKey(bits: 2048)
        #expect(key.publicKey.modulus.count == 256)
        #expect(key.publicKey.exponent == [1, 0, 1])
        let message = Array("header.payload".utf8)
        let signature = try key.pkcs1v15SHA256Signature(for: message)
        let published = try RSA.PublicKey(modulus: key.publicKey.modulus, exponent: key.publicKey.exponent)
        #expect(published.isValidPKCS1v15SHA256Signature(signature, for: message))
        #expect(!published.isValidPKCS1v15SHA256Signature(signature, for: Array("header.other".utf8)))
    }

    @Test func refusesShortModuliAndBadExponents() throws {
        let n = Self.bytes(Self.rfcN)
        #expect(throws: SystemCryptoError.self) { try RSA.PublicKey(modulus: Array(n.prefix(128)), exponent: [1, 0, 1]) }
        #expect(throws: SystemCryptoError.self) { try RSA.PublicKey(modulus: n, exponent: [1]) }
        #expect(throws: SystemCryptoError.self) { try RSA.PublicKey(modulus: n, exponent: [2]) }
        #expect(throws: SystemCryptoError.self) { try RSA.PublicKey(modulus: n, exponent: []) }
        #expect(throws: SystemCryptoError.self) { try RSA.SigningKey(bits: 1024) }
    }

    /// DER for a raw P-256 signature, written out here so the test does not reuse the code it checks.
    private static func der(_ raw: [UInt8]) -> [UInt8] {
        func integer(_ half: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(half.drop { $0 == 0 })
            if value.isEmpty || value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        return [0x30, UInt8(body.count)] + body
    }
}
