import Secrets
import Testing

/// The keyed BLAKE2b used to store codes and tokens.
@Suite struct KeyedHashTests {
    @Test func sameKeySameHashOtherKeyOtherHash() throws {
        let key = SecureRandom.bytes(32)
        let first = try KeyedHash(key: key)
        let again = try KeyedHash(key: key)
        let other = try KeyedHash(key: SecureRandom.bytes(32))
        #expect(first.hex("123456") == again.hex("123456"))
        #expect(first.hex("123456") != other.hex("123456"))
        #expect(first.hex("123456") != first.hex("123457"))
        #expect(first.hex("x").count == 64)
    }

    @Test func matchesKeyedBLAKE2b256() throws {
        // Expected values from Python's hashlib.blake2b(msg, key=bytes(range(32)), digest_size=32).
        let hash = try KeyedHash(key: Array(0..<32))
        #expect(hash.hex("") == "4e51e7a913fc80137da52880fecca175bf81e117d5c68126dc2774033517ea0d")
        #expect(hash.hex("123456") == "d7f31c6b9885992a4ce9c86f46049ae05faec0a688d43b5008efa2688055cdb5")
    }

    @Test func rejectsKeysOfOtherLengths() {
        #expect(throws: SecretsError.invalidKeyLength(16)) { try KeyedHash(key: SecureRandom.bytes(16)) }
    }

    @Test func constantTimeEquals() {
        #expect(KeyedHash.constantTimeEquals("abc", "abc"))
        #expect(!KeyedHash.constantTimeEquals("abc", "abd"))
        #expect(!KeyedHash.constantTimeEquals("abc", "abcd"))
        #expect(KeyedHash.constantTimeEquals("", ""))
    }
}
