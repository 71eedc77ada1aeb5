import Foundation
import HTTPTestClient
import TestScope
import Testing

@testable import Secrets

/// Issue 22 item 13: an imported hash is the importer's choice of cost. Above the bound it is
/// refused at import (bcrypt 13 or argon2 256 MiB × 3 passes were accepted, and argon2 up to
/// 256 MiB × 10 passes cost ~2 s a guess); and a try on a locked account never runs the stored
/// hash — it costs the dummy hash an unknown account costs and answers like any wrong password.
/// The hashes at the bound spend their work as 64 MiB × 8 passes rather than 256 MiB × 2, so the
/// test process (server and test in one) does not map 256 MiB twice beside the other suites.
@Suite(.stopsWhatItStarts) struct SlowHashAttackTests {
    static let email = "slow@example.com"
    static let password = "correct horse battery"
    /// bcrypt at cost 13 (the digest is never run: the cost alone refuses it).
    static let bcryptCost13 = "$2b$13$abcdefghijklmnopqrstuu.AxEupKavEYn/qbKcS65ybi7dE06iZS"
    /// argon2id at 64 MiB × 9 passes, over the bound's product (its tag is never run either).
    static let argon2AboveTheBound =
        "$argon2id$v=19$m=65536,t=9,p=1$c29tZXNhbHRzb21lc2FsdA$c29tZXRhZ3NvbWV0YWdzb21ldGFnc29tZXRhZ3NvbWU"

    /// An argon2id hash of `password` with `memoryKiB` and `iterations`, as another system wrote it.
    static func argon2id(_ password: String, memoryKiB: Int, iterations: Int) throws -> String {
        let salt = SecureRandom.bytes(16)
        let parameters = Argon2.Parameters(variant: .argon2id, memoryKiB: memoryKiB, iterations: iterations, parallelism: 1)
        let tag = try Argon2.tag(
            password: Array(password.utf8), salt: salt, tagLength: 32, parameters: parameters,
            memory: Argon2Memory(keptByteCount: 0))
        func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "") }
        return "$argon2id$v=19$m=\(memoryKiB),t=\(iterations),p=1$\(base64(salt))$\(base64(tag))"
    }

    /// The admin API's import, as one superuser (made once per server).
    private func importer(_ gatehouse: TestGatehouse) async throws -> ([[String: Any]]) async throws -> TestResponse {
        let admin = TestUserAPITests.AdminCaller(port: gatehouse.port, token: try await gatehouse.adminToken())
        return { rows in try await admin.send("POST", "/_/api/users/import", json: rows) }
    }

    @Test func hashesAboveTheCostBoundAreRefusedAtImportAndOnesAtItSignIn() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let importUsers = try await importer(gatehouse)
        let refused = try await importUsers([
            ["email": "bcrypt13@example.com", "passwordHash": Self.bcryptCost13, "verified": true],
            ["email": "argon-above@example.com", "passwordHash": Self.argon2AboveTheBound, "verified": true]
        ])
        #expect(refused.status == 422, "\(refused.text)")
        let rows = (try? JSONSerialization.jsonObject(with: Data(refused.body)) as? [String: Any])?["rows"] as? [[String: Any]]
        #expect(rows?.compactMap { $0["row"] as? Int } == [1, 2], "\(refused.text)")
        #expect(try await gatehouse.database.user(email: "argon-above@example.com") == nil)

        let atBound = try Self.argon2id(Self.password, memoryKiB: 65_536, iterations: 8)
        let imported = try await importUsers([["email": Self.email, "passwordHash": atBound, "verified": true]])
        #expect(imported.status == 201, "\(imported.text)")
        let signIn = try await gatehouse.postJSON(
            "/api/collections/users/auth-with-password", ["identity": Self.email, "password": Self.password], anonKey: false)
        #expect(signIn.status == 200 && signIn.json["token"] is String, "\(signIn.text)")
        await gatehouse.stop()
    }

    /// One PocketBase password try from `source`, and the argon2 work (KiB × passes) it cost.
    private func measuredTry(
        _ gatehouse: TestGatehouse, _ email: String, from source: String
    ) async throws -> (TestResponse, Int) {
        let before = gatehouse.passwords.argon2Work
        let answer = try await gatehouse.postJSON(
            "/api/collections/users/auth-with-password", ["identity": email, "password": "a wrong guess"], anonKey: false,
            from: source)
        return (answer, gatehouse.passwords.argon2Work - before)
    }

    /// What a try costs is counted in argon2 work, not timed: on a busy machine a clock measures the
    /// neighbours. The work is what the time of a try follows from.
    @Test func lockedTriesDoNotRunTheStoredHash() async throws {
        let gatehouse = try await TestGatehouse(verification: .none, hashCost: .interactive)
        // The back-off after the fifth failure waits 1 s, then 2 s, 4 s … after the newest failure,
        // and on a busy machine a try at the stored hash's cost can outlast that: with the clock
        // stopped every try after the fifth is inside the back-off, as it is for a fast attacker.
        gatehouse.clock.freeze()
        // The costliest hash the import takes: four times the dummy hash's work.
        let slowWork = 65_536 * 8
        let dummyWork = 65_536 * 2  // the server's own cost, which the dummy hash is made at
        let slow = try Self.argon2id(Self.password, memoryKiB: 65_536, iterations: 8)
        let importUsers = try await importer(gatehouse)
        #expect(try await importUsers([["email": Self.email, "passwordHash": slow, "verified": true]]).status == 201)

        for _ in 0..<5 {
            let (_, work) = try await measuredTry(gatehouse, Self.email, from: "127.0.0.2")
            #expect(work == slowWork, "a wrong password cost \(work), not the stored hash's \(slowWork)")
        }
        for _ in 0..<5 {
            let (answer, work) = try await measuredTry(gatehouse, Self.email, from: "127.0.0.2")
            #expect(answer.status == 429, "a locked try is told to wait: \(answer.status)")
            #expect(work == dummyWork, "a locked try cost \(work): the stored hash is \(slowWork), the dummy \(dummyWork)")
        }
        let (_, unknownWork) = try await measuredTry(gatehouse, "nobody@example.com", from: "127.0.0.3")
        #expect(unknownWork == dummyWork, "an unknown account cost \(unknownWork)")
        await gatehouse.stop()
    }
}
