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

    /// Persisted records take the same path (`StoredDateRecord`), not GRDB's default
    /// (`deferredToDate`, its formatter): the text alone could not tell them apart.
    @Test func persistedRecordsEncodeDatesByHand() {
        for strategy in [
            UserRecord.databaseDateEncodingStrategy(for: "created"),
            VerificationTokenRecord.databaseDateEncodingStrategy(for: "expires_at"),
            SignInTokenRecord.databaseDateEncodingStrategy(for: "expires_at")
        ] {
            guard case .custom = strategy else {
                Issue.record("\(strategy) is not the stored-text strategy")
                continue
            }
        }
    }
}
