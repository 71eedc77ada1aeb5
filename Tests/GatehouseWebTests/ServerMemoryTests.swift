import Foundation
import HTTPTestClient
import TestScope
import Testing

/// A stopped server gives back what it held. Each server hashes passwords in 64 MiB of argon2id
/// memory per hashing thread; when a dropped server kept it, the test process grew by ~80 MB for
/// every server a test started and the suite was killed for memory at 24 GB.
@Suite(.stopsWhatItStarts) struct ServerMemoryTests {
    /// Starts a server, signs one person up through the InsForge API (one argon2id hash besides the
    /// server's own dummy hash at start-up), and stops it.
    private func startSignUpAndStop(_ index: Int) async throws {
        let gatehouse = try await TestGatehouse(verification: .none, hashCost: .interactive)
        let body = #"{"email":"memory-\#(index)@example.com","password":"quiet-otter-123"}"#
        let response = try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/api/auth/users", headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        #expect(response.status == 200, "\(response.text)")
        await gatehouse.stop()
    }

    @Test func fiftyServersThatEachHashLeaveResidentMemoryWhereItWas() async throws {
        // The first servers load what every later one shares (templates, SQLite, the thread pools).
        for index in 0..<3 { try await startSignUpAndStop(index) }
        let before = try ProcessMemory.residentMiB()
        for index in 3..<53 { try await startSignUpAndStop(index) }
        let after = try ProcessMemory.residentMiB()
        // One server keeping its hashing memory would add 64 MiB, 50 of them 3.2 GB. What stays is
        // ~0.2 MiB a server: each stopped fixture (its SQLite connections) is held until the test ends.
        #expect(after - before < 32, "resident memory grew from \(Int(before)) to \(Int(after)) MiB over 50 servers")
    }
}
