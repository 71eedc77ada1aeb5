import Foundation
import Testing

@testable import Secrets

/// Issue 9, item 7: the keyed-hash key lives in the 0600 key file beside the secretbox key.
@Suite struct ServerKeysTests {
    private func temporaryPath() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("g.sqlite.key").path
    }

    @Test func aNewFileHoldsTwoIndependentKeysAndIsOwnerOnly() throws {
        let path = try temporaryPath()
        let keys = try ServerKeys.loadOrCreate(path: path) { nil }
        #expect(keys.secretBox.count == 32 && keys.keyedHash.count == 32)
        #expect(keys.secretBox != keys.keyedHash)
        #expect(FileManager.default.contents(atPath: path)?.count == 64)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let again = try ServerKeys.loadOrCreate(path: path) {
            Issue.record("a 64-byte file needs no legacy key")
            return nil
        }
        #expect(again.secretBox == keys.secretBox && again.keyedHash == keys.keyedHash)
    }

    @Test func anOldSecretBoxOnlyFileTakesTheDatabasesKeySoStoredHashesStillMatch() throws {
        let path = try temporaryPath()
        let secretBox = SecureRandom.bytes(32)
        let legacy = SecureRandom.bytes(32)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(secretBox), attributes: [.posixPermissions: 0o600]))
        let keys = try ServerKeys.loadOrCreate(path: path) { legacy }
        #expect(keys.secretBox == secretBox, "provider secrets sealed before stay readable")
        #expect(keys.keyedHash == legacy, "codes and sessions hashed before still match")
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == secretBox + legacy)
        #expect(!FileManager.default.fileExists(atPath: path + ".new"))
    }

    @Test func aFileOfAnotherLengthIsRefusedNamingIt() throws {
        let path = try temporaryPath()
        #expect(FileManager.default.createFile(atPath: path, contents: Data([1, 2, 3])))
        #expect(throws: SecretsError.self) { try ServerKeys.loadOrCreate(path: path) { nil } }
    }
}
