import Foundation
import Secrets
import Testing

/// Shapes and alphabets of the random values Gatehouse mails, stores and puts in URLs.
@Suite struct SecureRandomTests {
    @Test func bytesHaveTheAskedLength() {
        #expect(SecureRandom.bytes(0).isEmpty)
        #expect(SecureRandom.bytes(32).count == 32)
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
    }

    @Test func tokenIs256BitBase64URLWithoutPadding() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for _ in 0..<200 {
            let token = SecureRandom.token()
            #expect(token.count == 43)
            #expect(token.allSatisfy(allowed.contains))
        }
    }

    @Test func digitsAreSixDecimalDigits() {
        var seen = Set<Character>()
        for _ in 0..<200 {
            let code = SecureRandom.digits(6)
            #expect(code.count == 6)
            #expect(code.allSatisfy { $0.isASCII && $0.isNumber })
            seen.formUnion(code)
        }
        #expect(seen.count == 10)
    }

    @Test func userIDIsFifteenLowercaseAlphanumerics() {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789")
        let ids = (0..<200).map { _ in SecureRandom.userID() }
        #expect(ids.allSatisfy { $0.count == 15 && $0.allSatisfy(allowed.contains) })
        #expect(Set(ids).count == ids.count)
    }

    @Test func base64URLMatchesRFC4648Vectors() {
        #expect(Base64URL.encode([]) == "")
        #expect(Base64URL.encode(Array("f".utf8)) == "Zg")
        #expect(Base64URL.encode(Array("foob".utf8)) == "Zm9vYg")
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
    }

    /// Every remainder length and every byte value: the table encoder says what Foundation's base64
    /// says, made url-safe and unpadded, and decodes back to the bytes.
    @Test func base64URLAgreesWithFoundationForEveryLengthAndByte() {
        let samples = (0...66).map { SecureRandom.bytes($0) } + [(0...255).map(UInt8.init)]
        for bytes in samples {
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected)
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    /// One spelling per byte string: a last character with unused bits set, a lone sextet, or a
    /// character outside the alphabet is refused; padding is tolerated.
    @Test func base64URLRefusesNonCanonicalAndForeignText() {
        #expect(Base64URL.decode("QQ") == [0x41])
        #expect(Base64URL.decode("QQ==") == [0x41])
        #expect(Base64URL.decode("QR") == nil, "unused low bits set")
        #expect(Base64URL.decode("QUE") == [0x41, 0x41])
        #expect(Base64URL.decode("QUF") == nil, "unused low bits set")
        #expect(Base64URL.decode("QUFBQ") == nil, "a lone sextet")
        for foreign in ["QU+B", "QU/B", "QU B", "QUé", "QU.B"] { #expect(Base64URL.decode(foreign) == nil, "\(foreign)") }
        #expect(Base64URL.decode("") == [])
    }
}
