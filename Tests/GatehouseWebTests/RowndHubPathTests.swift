import HTTPServer
import Testing

/// The Hub answers where `--rownd-hub-path` puts it, and only there: an app's
/// `Rownd.config.baseUrl` names that path.
@Suite struct RowndHubPathTests {
    /// The status of `GET path` from an application started with `hubPath` (nil: the default).
    private static func status(of path: String, hubPath: String?) async throws -> (Int, String) {
        let running = try await InProcessApplication { configuration in
            if let hubPath { configuration.rowndHubPath = hubPath }
        }
        let request = try Request(
            method: .get, target: path, headers: [:], body: [], remoteAddress: "127.0.0.1", isLoopbackPeer: true)
        let response = await running.app.responder(request)
        await running.stop()
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    @Test func theHubAnswersAtTheConfiguredPathOnly() async throws {
        let (moved, page) = try await Self.status(of: "/sign-in-sheet/mobile_app?config=%7B%7D", hubPath: "/sign-in-sheet")
        #expect(moved == 200 && page.contains(#"id="rownd-hub""#), "the Hub's page")
        #expect(try await Self.status(of: "/sign-in-sheet", hubPath: "/sign-in-sheet").0 == 200)
        #expect(try await Self.status(of: "/rownd-hub/mobile_app", hubPath: "/sign-in-sheet").0 == 404)
        #expect(try await Self.status(of: "/rownd-hub/mobile_app", hubPath: nil).0 == 200, "the default")
    }
}
