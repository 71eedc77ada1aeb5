import AuthCore
import Foundation

extension CommandLineTestData {
    /// Makes the accounts of the seed file at `path` (`TestSeed`: all or none; accounts already
    /// there kept); `via` is `cli` for `gatehouse seed`, `serve-seed` for `serve --seed`.
    public func seed(file path: String, via: String) async throws -> TestSeed.Outcome {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw Refusal(description: "Cannot read the seed file \(path).")
        }
        do {
            let file = try SeedFile(json: Array(bytes))
            return try await TestSeed(backend: api, database: database, audit: audit, clock: clock)
                .apply(file, actor: nil, ip: nil, via: via)
        } catch let unreadable as SeedFile.Unreadable {
            throw Refusal(description: unreadable.description)
        } catch AuthError.validation(let fields) {
            throw Refusal(
                description: "Nothing was seeded.\n" + fields.map { "\($0.field): \($0.message)" }.joined(separator: "\n"))
        } catch AuthError.notSupported {
            throw Refusal(description: "Seed files need the embedded backend (--backend local).")
        }
    }
}
