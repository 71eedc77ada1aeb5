import Foundation
import FuzzHarnesses
import Testing

/// Every input in `Fuzz/corpus/HARNESS/` — the seeds, and each input libFuzzer ever found that
/// crashed a parser (kept after the fix) — runs through its parser on every `swift test`.
@Suite struct CorpusReplayTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fuzz/corpus").standardizedFileURL

    @Test(arguments: FuzzHarness.allCases)
    func everyCorpusInputParsesWithoutCrashing(harness: FuzzHarness) throws {
        let folder = Self.corpus.appendingPathComponent(harness.rawValue)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
        #expect(files.count >= 3, "the \(harness.rawValue) corpus has too few seeds")
        for file in files {
            let data = try #require(FileManager.default.contents(atPath: folder.appendingPathComponent(file).path))
            harness.run(Array(data))
        }
    }
}
