import Foundation
import GRDB
import Testing

@testable import Store

/// Gatehouse writes stored dates by hand (`Date.storedText`, issue 13) so the server never loads
/// ICU: the text must be byte for byte what GRDB's `DateFormatter` writes, or the hot reads'
/// `strftime` comparisons and every stored date already on disk would disagree with new ones.
@Suite struct StoredDateTests {
    @Test func writesWhatGRDBsFormatterWrites() {
        var generator = SystemRandomNumberGenerator()
        let boundaries: [Double] = [
            0, 0.0009, 0.999, 0.9999, 59.999, 86_399.999, 951_782_400, 951_868_799.999, 1_709_164_800.5,
            2_147_483_647, 2_147_483_647.999, 1_765_607_049.106, 1_795_436_047.287, 4_102_444_799.999, 4_107_542_399.999
        ]
        let random = (0..<5000).map { _ in Double.random(in: 0..<4_133_980_800, using: &generator) }
        for seconds in boundaries + random {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(date.storedText == date.databaseValue, "\(seconds)")
        }
    }

    /// Whole milliseconds, which are often a hair under themselves in binary, and dates rebuilt
    /// from their own stored text, as every read-modify-write does.
    @Test func wholeMillisecondsAndReadBackDatesAgreeToo() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let milliseconds = Int64.random(in: 0..<4_133_980_800_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            #expect(date.storedText == date.databaseValue, "\(milliseconds)")
            let stored = String.fromDatabaseValue(date.storedText) ?? ""
            let readBack = stored.utf8.withContiguousStorageIfAvailable { StoredDate.parse($0) } ?? nil
            #expect(readBack.map(\.storedText) == date.storedText, "\(stored)")
        }
    }

    /// Stored text reads back to the instant GRDB's own reading gives. Within a microsecond, not
    /// to the bit: near 2001 (Foundation's reference date) GRDB's calendar arithmetic and this
    /// parser's round the last binary digit differently, one random date in a few thousand. Either
    /// reading writes back as the same text (`writesWhatGRDBsFormatterWrites`).
    @Test func readsWhatGRDBReads() {
        var generator = SystemRandomNumberGenerator()
        let fixed = ["1970-01-01 00:00:00.000", "2024-02-29 23:59:59.999", "2038-01-19 03:14:07.5", "2026-11-23T12:14:07"]
        let random = (0..<3000).map { _ in
            String.fromDatabaseValue(
                Date(timeIntervalSince1970: Double.random(in: 0..<4_133_980_800, using: &generator)).storedText) ?? ""
        }
        for text in fixed + random {
            let mine = StoredDate.date(from: text.databaseValue)
            let grdbs = Date.fromDatabaseValue(text.databaseValue)
            #expect(mine != nil && grdbs != nil, "\(text)")
            if let mine, let grdbs {
                #expect(abs(mine.timeIntervalSince(grdbs)) < 1e-6, "\(text)")
                #expect(mine.storedText == grdbs.storedText, "\(text)")
            }
        }
    }

    /// Records that go through `Codable` take the same paths (`StoredDateRecord`), not GRDB's
    /// defaults (`deferredToDate`, its formatter and calendar): the text alone could not tell.
    @Test func codableRecordsReadAndWriteDatesByHand() {
        let strategies = [
            "\(UserRecord.databaseDateEncodingStrategy(for: "created"))",
            "\(VerificationTokenRecord.databaseDateEncodingStrategy(for: "expires_at"))",
            "\(SignInTokenRecord.databaseDateEncodingStrategy(for: "expires_at"))",
            "\(UserRecord.databaseDateDecodingStrategy(for: "created"))",
            "\(AuditEventRecord.databaseDateDecodingStrategy(for: "created_at"))"
        ]
        for strategy in strategies { #expect(strategy.hasPrefix("custom"), "\(strategy)") }
    }

    /// The hot reads bind it when a session has no idle rule: it must have a stored text of its
    /// own (a fallback to GRDB's formatter would load ICU into the server on every such request).
    @Test func theEarliestDateHasAStoredText() {
        #expect(StoredDate.text(StoredDate.earliest) == "0001-01-01 00:00:00.000")
    }
}
