import Foundation
import GatehouseWeb
import HTTPTestClient
import Logging
import Secrets
import TestScope
import Testing

@testable import Accounts

/// Descope's management API for test users (issue 47): only a live management key opens it, a
/// key is kept as a keyed hash, and codes handed to a test suite take the mail's own budgets.
@Suite(.stopsWhatItStarts) struct DescopeManagementTests {
    private func project(_ gatehouse: TestGatehouse) throws -> String {
        DescopeProject.generated(from: try gatehouse.database.secretKey(named: "descope-project-id")).ids[0]
    }

    private func keys(_ gatehouse: TestGatehouse) throws -> ManagementKeys {
        let hasher = try KeyedHash(key: try gatehouse.database.secretKey(named: "keyed-hash"))
        return ManagementKeys(
            database: gatehouse.database, hasher: hasher, clock: { gatehouse.clock.now }, logger: Logger(label: "test"))
    }

    /// `<projectId>:<managementKey>` with a new key.
    private func newBearer(_ gatehouse: TestGatehouse) async throws -> String {
        "\(try project(gatehouse)):\(try await keys(gatehouse).create(name: "CI", actor: nil, ip: nil, via: "cli").secret)"
    }

    private func call(
        _ gatehouse: TestGatehouse, _ path: String, _ body: [String: Any], bearer: String
    ) async throws -> TestResponse {
        try await HTTPTestClient(port: gatehouse.port).request(
            "POST", path, headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(bearer)")],
            body: Array(try JSONSerialization.data(withJSONObject: body)))
    }

    @Test func onlyALiveManagementKeyOpensTheAPI() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let project = try project(gatehouse)
        let created = try await keys(gatehouse).create(name: "CI", actor: nil, ip: nil, via: "cli")
        let search = "/v2/mgmt/user/search/test"
        #expect(try await call(gatehouse, search, [:], bearer: "\(project):\(created.secret)").status == 200)
        for bearer in [project, "\(project):K\(String(repeating: "x", count: 43))", "\(project):\(created.secret)x"] {
            let refused = try await call(gatehouse, search, [:], bearer: bearer)
            #expect(refused.status == 401, "\(bearer): \(refused.text)")
            #expect(refused.json["errorCode"] as? String == "E011003", "\(refused.text)")
        }
        #expect(try await keys(gatehouse).revoke(id: created.key.id, actor: nil, ip: nil, via: "cli"))
        #expect(try await call(gatehouse, search, [:], bearer: "\(project):\(created.secret)").status == 401)
        await gatehouse.stop()
    }

    @Test func aKeyIsKeptOnlyAsItsKeyedHash() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let created = try await keys(gatehouse).create(name: "kept-key-name-7f3a", actor: nil, ip: nil, via: "cli")
        let file = try Data(contentsOf: URL(fileURLWithPath: gatehouse.databasePath))
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: gatehouse.databasePath + "-wal"))) ?? Data()
        #expect(wal.range(of: Data(created.key.name.utf8)) != nil || file.range(of: Data(created.key.name.utf8)) != nil)
        #expect(file.range(of: Data(created.secret.utf8)) == nil && wal.range(of: Data(created.secret.utf8)) == nil)
        await gatehouse.stop()
    }

    /// A generated code is the mail's: the address's minute between sign-in mails holds for it,
    /// and nothing is mailed.
    @Test func generatedCodesTakeTheMailsBudgetAndAreNotMailed() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let bearer = try await newBearer(gatehouse)
        let email = "tess@example.com"
        #expect(try await call(gatehouse, "/v1/mgmt/user/create/test", ["loginId": email], bearer: bearer).status == 200)
        let body: [String: Any] = ["loginId": email, "deliveryMethod": "email"]
        let first = try await call(gatehouse, "/v1/mgmt/tests/generate/otp", body, bearer: bearer)
        #expect(first.status == 200 && (first.json["code"] as? String)?.count == 6, "\(first.text)")
        let second = try await call(gatehouse, "/v1/mgmt/tests/generate/otp", body, bearer: bearer)
        #expect(second.status == 429 && second.json["errorCode"] as? String == "E130429", "\(second.text)")
        #expect(try await gatehouse.mails(to: email).isEmpty)
        await gatehouse.stop()
    }

    /// Codes and links for people who are not test users are refused: a key cannot read anyone's
    /// sign-in code.
    @Test func codesAreRefusedForAccountsWithoutTheTestMark() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let bearer = try await newBearer(gatehouse)
        let person = "person@example.com"
        #expect(try await call(gatehouse, "/v1/mgmt/auth/signup", ["loginId": person], bearer: bearer).status == 200)
        for path in ["/v1/mgmt/tests/generate/otp", "/v1/mgmt/tests/generate/magiclink", "/v1/mgmt/tests/generate/enchantedlink"]
        {
            let refused = try await call(gatehouse, path, ["loginId": person, "deliveryMethod": "email"], bearer: bearer)
            #expect(refused.status == 400 && refused.json["errorCode"] as? String == "E062108", "\(path): \(refused.text)")
        }
        await gatehouse.stop()
    }
}
