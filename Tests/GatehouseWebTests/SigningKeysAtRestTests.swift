import Foundation
import GRDB
import GatehouseWeb
import HTTPTestClient
import OAuth
import Store
import TestScope
import Testing

/// Issue 42, item 5: the server's private signing keys (Descope's, SuperTokens', the test
/// provider's) are sealed at rest under the key file like every other secret, so a copy of the
/// SQLite file alone holds no key whose public half the server publishes: it mints nothing.
@Suite(.stopsWhatItStarts) struct SigningKeysAtRestTests {
    /// The `x` of every key the server publishes for Descope's and SuperTokens' tokens.
    private func publishedKeys(_ gatehouse: TestGatehouse) async throws -> Set<String> {
        let project = DescopeProject.generated(from: try gatehouse.database.secretKey(named: "descope-project-id")).ids[0]
        let client = HTTPTestClient(port: gatehouse.port)
        var found: Set<String> = []
        for path in ["/v2/keys/\(project)", "/.well-known/jwks.json"] {
            let jwks = try await client.request("GET", path)
            let keys = try #require(jwks.json["keys"] as? [[String: Any]], "\(path): \(jwks.text)")
            found.formUnion(keys.compactMap { $0["x"] as? String })
        }
        #expect(found.count == 2, "\(found)")
        return found
    }

    /// The `x` of the public key of every value in `secrets` that reads as a P-256 private key.
    private func keysInTheFile(_ gatehouse: TestGatehouse) throws -> Set<String> {
        let queue = try DatabaseQueue(path: gatehouse.databasePath)
        let values = try queue.read { db in try Data.fetchAll(db, sql: "SELECT value FROM secrets") }
        return Set(
            values.compactMap { value in
                (try? ES256Signer(rawPrivateKey: Array(value)))?.jwks.keys.first?.x
            })
    }

    @Test func aCopyOfTheDatabaseHoldsNoSigningKey() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let published = try await publishedKeys(gatehouse)
        #expect(published.isDisjoint(with: try keysInTheFile(gatehouse)), "a private key lies in the file as it is")
        await gatehouse.stop()
    }

    /// A database from before: its keys in plain text. They are sealed on start — the same keys,
    /// so tokens signed before still verify — and the plain copies are gone.
    @Test func keysKeptInPlainTextBeforeAreSealedAndKept() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let older = try AppDatabase(path: directory.appendingPathComponent("gatehouse.sqlite").path)
        let descope = try ES256Signer(rawPrivateKey: older.secretKey(named: "descope-api-signing"))
        await older.releaseMemory()
        let gatehouse = try await TestGatehouse(verification: .none, directory: directory)
        let published = try await publishedKeys(gatehouse)
        #expect(published.contains(try #require(descope.jwks.keys.first?.x)), "the older key was replaced")
        #expect(published.isDisjoint(with: try keysInTheFile(gatehouse)), "the plain copy is still in the file")
        await gatehouse.stop()
    }
}
