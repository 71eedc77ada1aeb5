import Foundation

@testable import Store

/// A fresh SQLite file in its own temp directory, removed when the value is released.
final class TestDatabase: Sendable {
    let directory: URL
    let path: String
    let database: AppDatabase

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("gatehouse.sqlite").path
        database = try AppDatabase(path: path)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}
