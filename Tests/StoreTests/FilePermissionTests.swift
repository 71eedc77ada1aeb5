import Foundation
import Store
import Testing

/// Issue 9, item 7: the SQLite file holds password hashes, sessions and mail: only its owner reads it.
@Suite struct FilePermissionTests {
    private func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func theDatabaseAndItsWALAndSHMAreOwnerOnly() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-perm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("g.sqlite").path
        let database = try AppDatabase(path: path)
        _ = try database.secretKey(named: "probe")  // a write, so the WAL and SHM exist
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(FileManager.default.fileExists(atPath: file), "\(file) missing")
            let permissions = try mode(file)
            #expect(permissions == 0o600, "\(file) has mode \(String(permissions, radix: 8))")
        }
    }

    @Test func anExistingWorldReadableFileIsNarrowedOnOpen() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-perm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("old.sqlite").path
        _ = try AppDatabase(path: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        _ = try AppDatabase(path: path)
        #expect(try mode(path) == 0o600)
    }
}
