import AuthCore
import Foundation
import Testing

/// `JSONValue`'s direct reader and writer (issue 13) stand in for `JSONDecoder`/`JSONEncoder` on
/// every profile read and every PocketBase-API answer: they must agree with them exactly.
@Suite struct JSONValueDirectTests {
    private static let samples: [JSONValue] = [
        .object([:]), .array([]), .null, .bool(true), .bool(false),
        .object([
            "name": "Zoë \"Z\" O'Brien", "path": "a/b\\c", "controls": .string("\u{1}\u{8}\u{c}\n\r\t\u{1f}\u{7f}"),
            "separators": "\u{2028}\u{2029}", "emoji": "👩‍💻", "é": .number(1), "A": .number(2), "_": .number(3), "z": .null,
            "numbers": .array(
                [
                    0, -0.0, 1, -1, -42, 1_764_000_000, 999_999_999_999_999, -999_999_999_999_999, 0.1, 1e21, 1e16, 1e15, 5e-7,
                    123_456_789_012.5, 1.5e300, 9_007_199_254_740_992
                ].map(
                    JSONValue.number)),
            "nested": .object(["deep": .array([.object(["x": .bool(true)]), .array([])])])
        ])
    ]

    @Test(arguments: samples) func writesWhatJSONEncoderWrites(_ value: JSONValue) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(String(decoding: value.serialized, as: UTF8.self) == String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    @Test(arguments: samples) func readsWhatItWrites(_ value: JSONValue) throws {
        let text = String(decoding: value.serialized, as: UTF8.self)
        #expect(JSONValue(parsing: text) == (try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))))
    }

    /// Fields written one by one in key order come out as the same fields in an `.object`.
    @Test func anObjectWrittenFieldByFieldIsTheObjectsJSON() {
        var writer = JSONObjectWriter()
        writer.field("A", .number(2))
        writer.field("controls", .string("\u{1}\n\"\\"))
        writer.field("empty") { _ in }
        writer.field("nested") { nested in
            nested.field("deep", .array([.object(["x": .bool(true)])]))
            nested.field("z", .null)
        }
        writer.field("é", .number(1))
        let object: JSONValue = .object([
            "é": .number(1), "A": .number(2), "controls": .string("\u{1}\n\"\\"), "empty": .object([:]),
            "nested": .object(["z": .null, "deep": .array([.object(["x": .bool(true)])])])
        ])
        #expect(String(decoding: writer.finished(), as: UTF8.self) == String(decoding: object.serialized, as: UTF8.self))
        #expect(JSONObjectWriter().finished() == Array("{}".utf8))
    }

    @Test func readsEscapesWhitespaceAndSurrogatePairs() {
        #expect(
            JSONValue(parsing: #" { "a" : [ 1 , "\u00e9\ud83d\ude00\/\"" ] } "#) == .object(["a": .array([.number(1), "é😀/\""])]))
    }

    /// Malformed text is refused, never guessed at, and never crashes (deep nesting included).
    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", ".5", "+1", "nul", "tru", "1 2", "{\"a\" 1}", "[\"\u{1}\"]",
        #""\ud800""#, #""\udc00""#, #""\x""#, #""\u12""#, "\"open", "1e", "NaN", "1e999", String(repeating: "[", count: 100_000)
    ])
    func refusesMalformedText(_ text: String) {
        #expect(JSONValue(parsing: text) == nil)
    }
}
