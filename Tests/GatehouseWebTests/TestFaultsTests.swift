import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Faults (issue 47, item 2): `POST /_/api/test/faults` makes the next matching requests answer
/// as told — in the API family's own error shape unless a body is given — then the fault is
/// spent; listed, removed, refused for bad input and for the test controls' own paths.
@Suite(.stopsWhatItStarts) struct TestFaultsTests {
    static let password = "correct horse battery staple"

    /// A test suite's calls, with the superuser's admin-API token on the test controls.
    struct Suite {
        let script: AttackScript
        let token: String

        func control(_ method: String, _ path: String, _ json: [String: Any]? = nil) async throws -> TestResponse {
            try await script.call(method, "/_/api/test" + path, json, bearer: token)
        }
    }

    private func started() async throws -> (TestGatehouse, Suite) {
        let gatehouse = try await TestGatehouse(verification: .none)
        return (gatehouse, Suite(script: AttackScript(port: gatehouse.port), token: try await gatehouse.adminToken()))
    }

    @Test func aPocketBaseRefreshFailsOnceInPocketBasesShapeThenWorks() async throws {
        let (gatehouse, suite) = try await started()
        let refresh = "/api/collections/users/auth-refresh"
        _ = try await suite.script.call(
            "POST", "/api/collections/users/records",
            ["email": "ann@example.com", "password": Self.password, "passwordConfirm": Self.password])
        let signedIn = try await suite.script.call(
            "POST", "/api/collections/users/auth-with-password", ["identity": "ann@example.com", "password": Self.password])
        let token = try #require(signedIn.json["token"] as? String, "\(signedIn.text)")
        let added = try await suite.control("POST", "/faults", ["method": "POST", "path": refresh, "status": 503])
        #expect(added.status == 201 && added.json["remaining"] as? Int == 1, "\(added.text)")
        #expect((try await suite.control("GET", "/faults").json["items"] as? [Any])?.count == 1)
        let failed = try await suite.script.call("POST", refresh, token: token)
        #expect(failed.status == 503)
        #expect(failed.json["status"] as? Int == 503 && failed.json["message"] is String && failed.json["data"] is [String: Any])
        #expect(try await suite.script.call("POST", refresh, token: token).status == 200, "the fault is spent")
        #expect((try await suite.control("GET", "/faults").json["items"] as? [Any])?.isEmpty == true)
        await gatehouse.stop()
    }

    @Test func anInsForgeRefreshAnswersInsForgesErrorAndAGivenBodyIsAnsweredAsIs() async throws {
        let (gatehouse, suite) = try await started()
        let refresh = "/api/auth/refresh"
        _ = try await suite.control("POST", "/faults", ["path": refresh, "status": 401])
        let refused = try await suite.script.call("POST", refresh + "?client_type=mobile", ["refreshToken": "x"])
        #expect(refused.status == 401)
        #expect(refused.json["error"] as? String == "AUTH_UNAUTHORIZED" && refused.json["statusCode"] as? Int == 401)
        #expect(refused.json["message"] is String, "\(refused.text)")
        _ = try await suite.control(
            "POST", "/faults", ["path": "/api/auth/*", "status": 418, "body": ["teapot": true], "count": 2])
        for _ in 0..<2 {
            let told = try await suite.script.call("GET", "/api/auth/sessions/current")
            #expect(told.status == 418 && told.json["teapot"] as? Bool == true)
        }
        #expect(try await suite.script.call("GET", "/api/auth/sessions/current").status == 401, "spent after two")
        await gatehouse.stop()
    }

    @Test func aDelayHoldsTheRequestThenLetsItThrough() async throws {
        let (gatehouse, suite) = try await started()
        _ = try await suite.control("POST", "/faults", ["method": "GET", "path": "/api/health", "delayMs": 400])
        let clock = ContinuousClock()
        let start = clock.now
        let held = try await suite.script.call("GET", "/api/health")
        let elapsed = clock.now - start
        #expect(held.status == 200 && elapsed >= .milliseconds(400), "\(elapsed)")
        let again = clock.now
        _ = try await suite.script.call("GET", "/api/health")
        #expect(clock.now - again < .milliseconds(400))
        await gatehouse.stop()
    }

    @Test func faultsAreListedRemovedAndBadOnesRefused() async throws {
        let (gatehouse, suite) = try await started()
        let added = try await suite.control("POST", "/faults", ["path": "/auth/sign-in", "status": 500, "count": 5])
        let id = try #require(added.json["id"] as? String)
        #expect(try await suite.script.call("GET", "/auth/sign-in").status == 500)
        #expect(try await suite.control("DELETE", "/faults/\(id)").status == 204)
        #expect(try await suite.control("DELETE", "/faults/\(id)").status == 404)
        #expect(try await suite.script.call("GET", "/auth/sign-in").status == 200)
        let bad = try await suite.control("POST", "/faults", ["path": "api", "status": 99, "count": 0])
        let fields = (bad.json["fields"] as? [[String: Any]])?.compactMap { $0["field"] as? String } ?? []
        #expect(bad.status == 422 && Set(fields) == ["path", "status", "count"], "\(bad.text)")
        let own = try await suite.control("POST", "/faults", ["path": "/_/api/test/*", "status": 500])
        #expect(own.status == 422, "the controls cannot lock themselves out")
        #expect(try await suite.control("POST", "/faults", ["path": "/api/health"]).status == 422, "neither status nor delay")
        #expect(try await suite.script.call("GET", "/_/api/test/faults").status == 401, "no token")
        await gatehouse.stop()
    }

    @Test func aFaultWithoutABodyAnswersInEachFamilysShapeAndTheLedgerNamesTheWayIn() async throws {
        let (gatehouse, suite) = try await started()
        struct Family {
            var path: String
            var headers: [(String, String)] = []
            var wayIn: String
            var check: @Sendable (TestResponse) -> Bool
        }
        let families = [
            Family(path: "/v1/auth/refresh", wayIn: "descope") { $0.json["errorCode"] is String },
            Family(path: "/recipe/session/refresh", wayIn: "supertokens") {
                $0.header("Content-Type")?.hasPrefix("text/plain") == true
            },
            Family(path: "/auth/session/refresh", headers: [("rid", "session"), ("fdi-version", "4.0")], wayIn: "supertokens-fdi")
            {
                $0.json.keys.sorted() == ["message"]
            },
            Family(path: "/auth/sign-in", wayIn: "pages") { $0.text.contains("<html") },
            Family(path: "/_/api/users", wayIn: "admin-api") { $0.json["error"] as? String == "INTERNAL_ERROR" }
        ]
        for (index, family) in families.enumerated() {
            _ = try await suite.control("POST", "/faults", ["path": family.path, "status": 500])
            let answer = try await suite.script.call(
                "POST", family.path, headers: family.headers + [("X-Request-Id", "family-\(index)")])
            #expect(answer.status == 500 && family.check(answer), "\(family.path): \(answer.text)")
            let entry = (try await suite.control("GET", "/requests?id=family-\(index)").json["items"] as? [[String: Any]])?.first
            #expect(entry?["wayIn"] as? String == family.wayIn && entry?["fault"] is String, "\(family.path)")
        }
        await gatehouse.stop()
    }
}
