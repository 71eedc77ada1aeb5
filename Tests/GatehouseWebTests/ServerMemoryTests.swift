import Foundation
import HTTPTestClient
import TestScope
import Testing

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(CMalloc)
    import CMalloc
#endif

/// A stopped server gives back what it held. Each server hashes passwords in 64 MiB of argon2id
/// memory per hashing thread; when a dropped server kept it, the test process grew by ~80 MB for
/// every server a test started and the suite was killed for memory at 24 GB.
@Suite(.stopsWhatItStarts) struct ServerMemoryTests {
    /// The process's resident memory in MiB, from `/proc/self/statm` (its second field, in pages),
    /// once the allocator has returned its free pages (as `gatehouse serve` does when it falls quiet),
    /// so what is left is memory something still holds.
    private func residentMiB() throws -> Double {
        #if canImport(CMalloc)
            _ = malloc_trim(0)
        #endif
        let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
        let fields = statm.split(separator: " ")
        let pages = try #require(fields.count > 1 ? Double(fields[1]) : nil, "statm: \(statm)")
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }

    /// Starts a server, signs one person up through the InsForge API (one argon2id hash besides the
    /// server's own dummy hash at start-up), and stops it.
    private func startSignUpAndStop(_ index: Int) async throws {
        let gatehouse = try await TestGatehouse(verification: .none, hashCost: .interactive)
        let body = #"{"email":"memory-\#(index)@example.com","password":"password-123"}"#
        let response = try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/api/auth/users", headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        #expect(response.status == 200, "\(response.text)")
        await gatehouse.stop()
    }

    @Test func fiftyServersThatEachHashLeaveResidentMemoryWhereItWas() async throws {
        // The first servers load what every later one shares (templates, SQLite, the thread pools).
        for index in 0..<3 { try await startSignUpAndStop(index) }
        let before = try residentMiB()
        for index in 3..<53 { try await startSignUpAndStop(index) }
        let after = try residentMiB()
        // One server keeping its hashing memory would add 64 MiB, 50 of them 3.2 GB. What stays is
        // ~0.2 MiB a server: each stopped fixture (its SQLite connections) is held until the test ends.
        #expect(after - before < 32, "resident memory grew from \(Int(before)) to \(Int(after)) MiB over 50 servers")
    }
}
