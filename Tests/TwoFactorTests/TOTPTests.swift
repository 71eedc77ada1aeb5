import Foundation
import Testing
import TwoFactor

/// RFC 6238 codes and the verifier's window and input rules.
@Suite struct TOTPTests {
    /// The RFC 6238 Appendix B SHA-1 key.
    static let rfcSecret = Array("12345678901234567890".utf8)

    /// Appendix B SHA-1 rows: the last six digits of the published eight-digit values.
    @Test(
        arguments: [
            (59, "287082"), (1_111_111_109, "081804"), (1_111_111_111, "050471"), (1_234_567_890, "005924"),
            (2_000_000_000, "279037"), (20_000_000_000, "353130")
        ] as [(Int64, String)])
    func rfc6238Vectors(_ time: Int64, _ expected: String) throws {
        let date = Date(timeIntervalSince1970: TimeInterval(time))
        #expect(try TOTP.code(secret: Self.rfcSecret, at: date) == expected)
        #expect(try TOTP().matchingStep(expected, secret: Self.rfcSecret, at: date) == time / 30)
    }

    @Test func stepIsWholePeriodsSinceTheEpoch() {
        #expect(TOTP().step(at: Date(timeIntervalSince1970: 0)) == 0)
        #expect(TOTP().step(at: Date(timeIntervalSince1970: 29.999)) == 0)
        #expect(TOTP().step(at: Date(timeIntervalSince1970: 30)) == 1)
        #expect(TOTP().step(at: Date(timeIntervalSince1970: 1_111_111_109)) == 37_037_036)
    }

    @Test func oneStepEitherWayIsAcceptedAndTwoAreNot() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let totp = TOTP()
        let current = totp.step(at: now)
        for offset in -2...2 {
            let code = try TOTP.code(secret: Self.rfcSecret, at: now.addingTimeInterval(TimeInterval(offset * 30)))
            let matched = try totp.matchingStep(code, secret: Self.rfcSecret, at: now)
            #expect(matched == (abs(offset) <= 1 ? current + Int64(offset) : nil), "offset \(offset)")
        }
        let next = try TOTP.code(secret: Self.rfcSecret, at: now.addingTimeInterval(30))
        #expect(try totp.matchingStep(next, secret: Self.rfcSecret, at: now, window: 0) == nil)
        #expect(try totp.matchingStep(next, secret: Self.rfcSecret, at: now, window: 2) == current + 1)
    }

    @Test func aDifferentSecretDoesNotMatch() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let code = try TOTP.code(secret: Self.rfcSecret, at: now)
        #expect(try TOTP().matchingStep(code, secret: Array("12345678901234567891".utf8), at: now) == nil)
    }

    @Test func spacesAreStrippedButNothingElseIsForgiven() throws {
        let date = Date(timeIntervalSince1970: 59)
        let totp = TOTP()
        #expect(try totp.matchingStep("287 082", secret: Self.rfcSecret, at: date) == 1)
        #expect(try totp.matchingStep(" 28 70 82 ", secret: Self.rfcSecret, at: date) == 1)
        let refused = ["", "28708", "2870820", "28708a", "287-082", "+87082", "２８７０８２", "287082\n", "94287082"]
        for bad in refused {
            #expect(try totp.matchingStep(bad, secret: Self.rfcSecret, at: date) == nil, "\(bad.debugDescription)")
        }
    }
}

/// RFC 4648 base32 and the secret type built on it.
@Suite struct Base32Tests {
    @Test(arguments: [
        ("", ""), ("f", "MY"), ("fo", "MZXQ"), ("foo", "MZXW6"), ("foob", "MZXW6YQ"), ("fooba", "MZXW6YTB"),
        ("foobar", "MZXW6YTBOI")
    ])
    func rfc4648Vectors(_ plain: String, _ encoded: String) {
        #expect(Base32.encode(Array(plain.utf8)) == encoded)
        #expect(Base32.decode(encoded) == Array(plain.utf8))
    }

    @Test func decodingIsLenient() {
        let foobar = Array("foobar".utf8)
        #expect(Base32.decode("MZXW6YTBOI======") == foobar)
        #expect(Base32.decode("mzxw 6ytb oi") == foobar)
        #expect(Base32.decode("MzXw6YtBoI==") == foobar)
        #expect(Base32.decode("MZXW6YQ=") == Array("foob".utf8))
    }

    @Test func decodingRefusesWhatIsNotBase32() {
        for bad in ["MZXW1YTB", "MZXW8", "MZ-XW", "MZ=XW", "MZXW6YTBO", "M", "MZX", "MZXW6Y", "é"] {
            #expect(Base32.decode(bad) == nil, "\(bad)")
        }
    }

    @Test func roundTripsEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...41 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let text = Base32.encode(bytes)
            #expect(!text.contains("="))
            #expect(text == text.uppercased())
            #expect(Base32.decode(text) == bytes)
            #expect(Base32.decode(text.lowercased()) == bytes)
        }
    }

    @Test func secretsAreTwentyRandomBytes() {
        let first = TOTPSecret()
        let second = TOTPSecret()
        #expect(first.bytes.count == 20)
        #expect(first.base32.count == 32)
        #expect(first != second)
        #expect(TOTPSecret(base32: first.base32) == first)
        #expect(TOTPSecret(base32: first.base32.lowercased()) == first)
        #expect(TOTPSecret(base32: "") == nil)
        #expect(TOTPSecret(base32: "not base32!") == nil)
    }

    @Test func provisioningURLFollowsTheKeyUriFormat() {
        let secret = TOTPSecret(bytes: TOTPTests.rfcSecret)
        #expect(secret.base32 == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
        #expect(
            secret.provisioningURL(issuer: "Gate House", account: "ada lovelace@example.com")
                == "otpauth://totp/Gate%20House:ada%20lovelace%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
                + "&issuer=Gate%20House&algorithm=SHA1&digits=6&period=30")
        #expect(
            secret.provisioningURL(issuer: "A&B: Ünï", account: "x+y/z?")
                == "otpauth://totp/A%26B%3A%20%C3%9Cn%C3%AF:x%2By%2Fz%3F?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
                + "&issuer=A%26B%3A%20%C3%9Cn%C3%AF&algorithm=SHA1&digits=6&period=30")
    }
}

/// Recovery code generation and normalization.
@Suite struct RecoveryCodesTests {
    @Test func tenDistinctCodesInFiveFiveGroups() throws {
        let codes = RecoveryCodes.generate()
        #expect(codes.count == 10)
        #expect(Set(codes).count == 10)
        let format = try Regex("^[abcdefghjkmnpqrstuvwxyz2-9]{5}-[abcdefghjkmnpqrstuvwxyz2-9]{5}$")
        for code in codes {
            #expect(code.wholeMatch(of: format) != nil, "\(code)")
            #expect(RecoveryCodes.normalize(code).count == 10)
        }
        #expect(RecoveryCodes.generate(count: 3).count == 3)
        #expect(Set(RecoveryCodes.generate() + RecoveryCodes.generate()).count == 20)
    }

    @Test func alphabetHasNoLookAlikes() {
        #expect(RecoveryCodes.alphabet.count == 31)
        #expect(Set(RecoveryCodes.alphabet).count == 31)
        for character in "01ilo" {
            #expect(!RecoveryCodes.alphabet.contains(character))
        }
    }

    @Test func normalizeDropsCaseSpacesAndDashes() {
        #expect(RecoveryCodes.normalize("ab3k9-x7q2m") == "ab3k9x7q2m")
        #expect(RecoveryCodes.normalize(" AB3K9 - X7Q2M ") == "ab3k9x7q2m")
        #expect(RecoveryCodes.normalize("ab3k9x7q2m\n") == "ab3k9x7q2m")
        #expect(RecoveryCodes.normalize("ab3k9_x7q2m") == "ab3k9_x7q2m")
    }
}
