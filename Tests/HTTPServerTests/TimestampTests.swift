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

/// `Timestamp.parse` reads request bodies' dates by hand (issue 13): what Foundation's ISO 8601
/// parser read before, to the same instant, and nothing that is not a date.
@Suite struct TimestampParsingTests {
    @Test func readsWhatFoundationRead() throws {
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let whole = Date.ISO8601FormatStyle()
        let texts = [
            "2026-11-23T12:14:07.287Z", "2026-11-23T12:14:07Z", "2026-11-23T12:14:07.2Z",
            "2026-11-23T12:14:07.123456789Z", "2026-11-23T12:14:07.287z", "2026-11-23T12:14:07.287+02:00",
            "2026-11-23T12:14:07-0530", "1969-12-31T23:59:59.999Z", "2024-02-29T00:00:00Z", "1900-03-01T00:00:00.5Z",
            "2100-12-31T23:59:59.999Z"
        ]
        for text in texts {
            let foundation = try #require((try? fractional.parse(text)) ?? (try? whole.parse(text)), "\(text)")
            let parsed = try #require(Timestamp.parse(text), "\(text)")
            #expect(abs(parsed.timeIntervalSince(foundation)) < 1e-6, "\(text)")
        }
    }

    /// Within a microsecond (the two round the last binary digit differently near 2001, the
    /// reference date), so a date read from a body is the instant it was before.
    @Test func readsWrittenDatesToTheSameInstantAsFoundation() throws {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: -2_208_988_800_000...4_102_444_800_000, using: &generator)
            let text = Timestamp.iso8601(Date(timeIntervalSince1970: Double(milliseconds) / 1000 + 0.0004))
            let parsed = try #require(Timestamp.parse(text), "\(text)")
            #expect(abs(parsed.timeIntervalSince(try style.parse(text))) < 1e-6, "\(text)")
        }
    }

    @Test func rejectsWhatIsNotADate() {
        let texts = [
            "", "2026-11-23", "2026-11-23 12:14:07Z", "2026-11-23T12:14:07", "2026-11-23T12:14:07.Z",
            "2026-11-23T12:14:07.1234567891Z", "2026-13-01T00:00:00Z", "2026-11-23T24:00:00Z", "20261123T121407Z",
            "2026-11-23T12:14:07+02", "2026-11-23T12:14:07Zjunk", "2026-11-2aT12:14:07Z"
        ]
        for text in texts { #expect(Timestamp.parse(text) == nil, "\(text)") }
    }
}
