import Testing
import WebAuthn
import WebAuthnTestSupport

/// RFC 8949 Appendix A's examples (the definite-length ones), and what the reader refuses.
@Suite struct CBORDecoderTests {
    static let examples: [(String, CBOR)] = [
        ("00", CBOR.unsigned(0)), ("17", .unsigned(23)), ("1818", .unsigned(24)), ("1903e8", .unsigned(1000)),
        ("1bffffffffffffffff", .unsigned(UInt64.max)), ("20", CBOR(-1)), ("3863", CBOR(-100)),
        ("f90000", .float(0)), ("f93c00", .float(1)), ("f97bff", .float(65504)), ("fa47c35000", .float(100000)),
        ("fb3ff199999999999a", .float(1.1)), ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null), ("f7", .undefined),
        ("f0", .simple(16)), ("f8ff", .simple(255)), ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])),
        ("60", .text("")), ("6449455446", .text("IETF")), ("62c3bc", .text("ü")), ("80", .array([])),
        ("8301820203820405", .array([CBOR(1), .array([CBOR(2), CBOR(3)]), .array([CBOR(4), CBOR(5)])])),
        ("a201020304", .map([(CBOR(1), CBOR(2)), (CBOR(3), CBOR(4))])),
        ("c11a514b67b0", .tagged(1, .unsigned(1_363_896_240)))
    ]

    static let refusals: [(String, CBORError)] = [
        ("5f42010243030405ff", .indefiniteLength), ("9fff", .indefiniteLength), ("bfff", .indefiniteLength),
        ("0000", .trailingBytes), ("18", .truncated), ("62c3", .truncated), ("9a7fffffff", .truncated),
        ("bb7fffffffffffffff", .truncated), ("62c328", .invalidText), ("a201020103", .duplicateKey), ("1c", .malformed),
        ("f818", .malformed), ("", .truncated)
    ]

    @Test(arguments: examples)
    func readsTheRFCExamples(encoded: String, expected: CBOR) throws {
        #expect(try CBORDecoder.decode(hex(encoded)) == expected)
    }

    @Test(arguments: refusals)
    func refusesWhatWebAuthnNeverSends(encoded: String, error: CBORError) {
        #expect(throws: error) { try CBORDecoder.decode(hex(encoded)) }
    }

    @Test func refusesNestingDeeperThanTheLimit() {
        let deep = [UInt8](repeating: 0x81, count: CBORDecoder.maxDepth + 1) + [0x00]
        #expect(throws: CBORError.tooDeep) { try CBORDecoder.decode(deep) }
        let fine = [UInt8](repeating: 0x81, count: CBORDecoder.maxDepth) + [0x00]
        #expect(throws: Never.self) { try CBORDecoder.decode(fine) }
    }

    @Test func aPrefixSaysWhereItEnds() throws {
        let (value, end) = try CBORDecoder.decodePrefix(hex("a1010200ff"), from: 0)
        #expect(value == .map([(CBOR(1), CBOR(2))]))
        #expect(end == 3)
    }
}
