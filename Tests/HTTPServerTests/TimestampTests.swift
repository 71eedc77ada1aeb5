import Foundation
import HTTPServer
import Testing

/// `Timestamp.utc` writes dates by hand on every API answer (issue 13): it must say what Foundation's
/// ISO 8601 style says, milliseconds truncated, for dates before 1970, leap days and year ends too.
@Suite struct TimestampTests {
    /// Mid-millisecond dates, where truncation is unambiguous: Foundation's own style truncates
    /// the binary fraction, so `x.106` (stored as `x.10599…`) prints `.105` there (see the next test).
    @Test func agreesWithFoundationsISO8601Style() {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        var generator = SystemRandomNumberGenerator()
        let fixed: [Int64] = [0, -1, -1500, -86_400_000, 951_782_400_000, 951_868_799_999, 1_709_164_800_500, 4_102_444_799_999]
        let random = (0..<5000).map { _ in Int64.random(in: -2_208_988_800_000...4_102_444_800_000, using: &generator) }
        for milliseconds in fixed + random {
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000 + 0.0004)
            #expect(Timestamp.utc(date, separator: "T") == date.formatted(style), "\(milliseconds)")
        }
    }

    /// A whole millisecond is often a little under itself in binary (`.106` is `.10599…`): it
    /// still says `.106`, so a stored date reads back as written.
    @Test func aWholeMillisecondReadsBackAsItself() throws {
        #expect(Timestamp.utc(Date(timeIntervalSince1970: 1_765_607_049.106), separator: "T") == "2025-12-13T06:24:09.106Z")
        let date = try #require(Timestamp.parse("2026-11-23T12:14:07.287Z"))
        #expect(Timestamp.iso8601(date) == "2026-11-23T12:14:07.287Z")
        #expect(Timestamp.utc(date, separator: " ") == "2026-11-23 12:14:07.287Z")
    }

    @Test func yearsOutsideFourDigitsAreLeftToFoundation() {
        #expect(Timestamp.utc(Date(timeIntervalSince1970: -62_167_219_200.5), separator: "T") == nil)
        #expect(Timestamp.utc(Date(timeIntervalSince1970: 253_402_300_800), separator: "T") == nil)
    }
}
