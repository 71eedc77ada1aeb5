import AuthCore
import Foundation
import HTTPTestClient
import LocalAuth
import Logging
import Secrets
import Store
import TestScope
import Testing

@testable import Accounts

/// Seed files (issue 47, item 2): `gatehouse seed FILE` and `serve --seed FILE` make accounts
/// through the admin side's own making — pinned ids, passwords hashed on load, verified state,
/// authenticator keys, provider links, tags — all or none, keeping accounts already there.
@Suite(.stopsWhatItStarts) struct TestSeedTests {
    static let password = "correct horse battery staple"

    /// What `gatehouse seed` runs, on the server's own file.
    private func seed(_ gatehouse: TestGatehouse, _ json: String) async throws -> TestSeed.Outcome {
        let file = gatehouse.directory.appendingPathComponent("seed-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: file)
        let hasher = try KeyedHash(key: try gatehouse.database.secretKey(named: "keyed-hash"))
        var logger = Logger(label: "seed-test")
        logger.logLevel = .critical
        let accounts = LocalAccounts(
            configuration: .init(verification: .none, publicBaseURL: { "" }), database: gatehouse.database,
            hasher: gatehouse.passwords, mailer: try MailboxMailer(database: gatehouse.database, keyedHash: hasher),
            keyedHash: hasher, logger: logger)
        return try await CommandLineTestData(
            backend: LocalBackend(accounts: accounts), database: gatehouse.database, logger: logger, clock: Date.init
        ).seed(file: file.path, via: "cli")
    }

    static let file = """
        {"users": [
          {"id": "seededann000001", "email": "ann@example.com", "password": "\(password)", "name": "Ann Seed",
           "verified": true, "totpSecret": "JBSWY3DPEHPK3PXP", "tags": ["beta", "seeded"],
           "providers": [{"provider": "github", "subject": "4242", "email": "ann@example.com"}]},
          {"email": "bo@example.com", "password": "\(password)"}
        ]}
        """

    @Test func seededAccountsSignInWithTheirPasswordIdKeyLinksAndTags() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let outcome = try await seed(gatehouse, Self.file)
        #expect(outcome.created.count == 2 && outcome.kept == 0)
        let token = try await gatehouse.adminToken()
        let script = AttackScript(port: gatehouse.port)
        let ann = try await script.call("GET", "/_/api/users/seededann000001", bearer: token)
        #expect(ann.json["email"] as? String == "ann@example.com" && ann.json["emailVerified"] as? Bool == true, "\(ann.text)")
        #expect(Set(ann.json["tags"] as? [String] ?? []) == ["beta", "seeded"])
        // The password was hashed on load, and the authenticator key holds: a second step is owed.
        let signIn = try await script.call(
            "POST", "/api/collections/users/auth-with-password", ["identity": "ann@example.com", "password": Self.password])
        #expect(signIn.status == 401 && signIn.json["mfaId"] is String, "\(signIn.text)")
        let links = try await gatehouse.database.externalAuths(userID: UserID("seededann000001"))
        #expect(links.map(\.provider) == ["github"] && links.first?.providerID == "4242")
        let bo = try await script.call(
            "POST", "/api/collections/users/auth-with-password", ["identity": "bo@example.com", "password": Self.password])
        #expect(bo.status == 403 || bo.status == 400, "unverified unless the file says so: \(bo.text)")
        let again = try await seed(gatehouse, Self.file)
        #expect(again.created.isEmpty && again.kept == 2, "a second start on the same file keeps what is there")
        #expect(try await gatehouse.database.auditEvents(AuditFilter(type: "test.seeded", limit: 5)).count == 2)
        await gatehouse.stop()
    }

    @Test func aRefusedEntryLeavesNothingOfTheRunAndNamesTheEntry() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let weak = """
            {"users": [{"email": "cy@example.com", "password": "\(Self.password)"},
                       {"id": "BAD", "email": "di@example.com", "password": "x", "totpSecret": "!!"}]}
            """
        let refusal = await #expect(throws: CommandLineTestData.Refusal.self) { try await seed(gatehouse, weak) }
        let text = refusal?.description ?? ""
        #expect(
            text.contains("users[1].id") && text.contains("users[1].password") && text.contains("users[1].totpSecret"), "\(text)")
        let token = try await gatehouse.adminToken()
        let users = try await AttackScript(port: gatehouse.port).call("GET", "/_/api/users", bearer: token)
        #expect((users.json["items"] as? [Any])?.isEmpty == true, "cy, made before the refusal, is gone too")
        await #expect(throws: CommandLineTestData.Refusal.self) {
            try await seed(gatehouse, #"{"users": [{"email": "a@example.com"}, {"email": "A@example.com"}]}"#)
        }
        await #expect(throws: CommandLineTestData.Refusal.self) { try await seed(gatehouse, "[1, 2]") }
        await gatehouse.stop()
    }
}
