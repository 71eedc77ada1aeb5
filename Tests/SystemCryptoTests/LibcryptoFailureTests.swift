import Testing

@testable import SystemCrypto

/// libcrypto refusing what it is asked — a digest it does not have, a digest HMAC cannot use, a key
/// of another type than the operation needs — is a thrown `SystemCryptoError`, never a crash and
/// never a blank answer (the old HMAC ended in a `precondition`, the old SHA-256 ignored the result).
@Suite struct LibcryptoFailureTests {
    @Test func aDigestLibcryptoDoesNotHaveIsAThrownError() {
        #expect(throws: SystemCryptoError.unsupportedDigest("NO-SUCH-DIGEST")) {
            try "NO-SUCH-DIGEST".withCString { name throws(SystemCryptoError) in try MessageDigest(named: name) }
        }
    }

    @Test func anHMACOverADigestHMACCannotUseIsAThrownError() throws {
        // SHAKE128 is an extendable-output function: libcrypto hashes with it, and refuses HMAC over it.
        let shake = try "SHAKE128".withCString { name throws(SystemCryptoError) in try MessageDigest(named: name) }
        #expect(try shake.hash(Array("abc".utf8)).count == shake.length)
        #expect(throws: SystemCryptoError.operationFailed("HMAC")) {
            try shake.mac(key: Array("key".utf8), message: Array("message".utf8))
        }
    }

    @Test func aKeyOfTheWrongTypeIsAThrownError() throws {
        let rsa = try LibcryptoKey.generate(type: CName.rsa) { _ in true }
        #expect(throws: SystemCryptoError.self) { try P256.PublicKey(key: rsa) }
        #expect(throws: SystemCryptoError.self) { try rsa.bigNumber("qx") }
    }

    @Test func keyParametersLibcryptoRefusesAreAThrownError() {
        // An EC key with no curve and no point.
        #expect(throws: SystemCryptoError.self) {
            try LibcryptoKey.fromParameters(type: CName.ec, part: .publicKey) { _ in true }
        }
    }

    @Test func theCheckedPathStillGivesTheStandardsAnswers() throws {
        let sha256 = try MessageDigest.sha256.get()
        #expect(sha256.length == 32)
        #expect(try SHA256.digest([]) == (try sha256.hash([])))
    }
}
