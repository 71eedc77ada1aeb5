import AuthCore
import Foundation
import GatehouseWeb
import TestScope
import Testing

/// A broken template stops start-up and the error names the file.
@Suite(.stopsWhatItStarts) struct TemplateLoadingTests {
    @Test func brokenTemplateStopsStartUpNamingTheFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: TestGatehouse.repositoryRoot + "/Templates", toPath: folder.path)
        try "{{#user}} never closed".write(
            to: folder.appendingPathComponent("account.mustache"), atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: folder) }
        await #expect {
            _ = try await TemplateRenderer(directory: folder.path)
        } throws: { error in
            "\(error)".contains("account.mustache")
        }
    }

    @Test func missingTemplateStopsStartUp() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: TestGatehouse.repositoryRoot + "/Templates", toPath: folder.path)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("sign-in.mustache"))
        defer { try? FileManager.default.removeItem(at: folder) }
        await #expect {
            _ = try await TemplateRenderer(directory: folder.path)
        } throws: { error in
            "\(error)".contains("sign-in.mustache")
        }
    }

    /// Issue 8: the three pages the old required list forgot gave an empty 200 when missing.
    @Test(arguments: ["continue", "test-idp", "console-providers", "sessions", "console-layout"])
    func everyTemplateAPageUsesIsRequiredAtStartUp(name: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: TestGatehouse.repositoryRoot + "/Templates", toPath: folder.path)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("\(name).mustache"))
        defer { try? FileManager.default.removeItem(at: folder) }
        await #expect {
            _ = try await TemplateRenderer(directory: folder.path)
        } throws: { error in
            "\(error)".contains("\(name).mustache")
        }
    }
}
