import Foundation
import GatehouseWeb
import HTTPServer
import Testing

@testable import Accounts

/// Who the test controls answer (issue 47, item 4): by default only peers on loopback;
/// `--test-controls` every peer; `--no-test-controls` nobody (the routes are not there). Requests
/// are handed to the application directly, so they can come from any address.
@Suite struct TestControlsAccessTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var controls: TestControls
        var path: String
        var loopback: Bool
        var status: Int
        var testDescription: String { "\(controls), \(path), \(loopback ? "loopback" : "remote") → \(status)" }
    }

    static let search = "/v2/mgmt/user/search/test"
    static let mailpit = "/api/v1/messages"
    static let faults = "/_/api/test/faults"

    static let cases: [Case] = [
        Case(controls: .onLoopback, path: search, loopback: true, status: 200),
        Case(controls: .onLoopback, path: search, loopback: false, status: 403),
        Case(controls: .everywhere, path: search, loopback: false, status: 200),
        Case(controls: .off, path: search, loopback: true, status: 404),
        Case(controls: .onLoopback, path: mailpit, loopback: true, status: 200),
        Case(controls: .onLoopback, path: mailpit, loopback: false, status: 403),
        Case(controls: .everywhere, path: mailpit, loopback: false, status: 200),
        Case(controls: .off, path: mailpit, loopback: true, status: 404),
        Case(controls: .onLoopback, path: faults, loopback: true, status: 200),
        Case(controls: .onLoopback, path: faults, loopback: false, status: 403),
        Case(controls: .everywhere, path: faults, loopback: false, status: 200),
        Case(controls: .off, path: faults, loopback: true, status: 404)
    ]

    @Test(arguments: cases) func controlsAnswerWhereTheFlagsSay(_ check: Case) async throws {
        let running = try await InProcessApplication {
            $0.testControls = check.controls
            $0.descopeProjectIDs = ["P2testControlsAccess00000001"]
        }
        let key = try await ManagementKeys(
            database: running.database, hasher: running.hasher, clock: Date.init, logger: running.logger
        ).create(
            name: "CI", actor: nil, ip: nil, via: "cli")
        let isSearch = check.path == Self.search
        let headers: HTTPHeaders = [
            "Content-Type": "application/json", "Authorization": "Bearer P2testControlsAccess00000001:\(key.secret)"
        ]
        let request = try Request(
            method: isSearch ? .post : .get, target: check.path, headers: headers, body: isSearch ? Array("{}".utf8) : [],
            remoteAddress: check.loopback ? "127.0.0.1" : "203.0.113.7", isLoopbackPeer: check.loopback)
        let response = await running.app.responder(request)
        #expect(response.status == check.status, "\(String(decoding: response.body, as: UTF8.self))")
        // The request ledger gives every request an id while the controls are on, and none is made when they are off.
        #expect((response.headers["X-Request-Id"] != nil) == (check.controls != .off))
        await running.stop()
    }
}
