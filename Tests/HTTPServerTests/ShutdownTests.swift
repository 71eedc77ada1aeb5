import Foundation
import HTTPServer
import HTTPTestClient
import Logging
import Testing

@Suite("Lifecycle")
struct ShutdownTests {
    static func quietLogger() -> Logger { LogRecorder().logger }

    @Test func gracefulShutdownWaitsForInFlightThenRefusesConnections() async throws {
        let started = Counter()
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 2), logger: Self.quietLogger()) { _ in
            started.increment()
            try? await Task.sleep(for: .milliseconds(400))
            return .text("slow done")
        }
        try server.start()
        try await stoppingAfterwards(server) {
            let client = HTTPTestClient(port: server.port)
            async let slow = client.request("GET", "/slow")
            try await waitUntil("the slow request to reach its handler") { started.value > 0 }
            await server.shutdown(gracePeriod: .seconds(5))
            let response = try await slow
            #expect(response.status == 200)
            #expect(response.text == "slow done")
            await #expect(throws: TestClientError.connectFailed(ECONNREFUSED)) {
                _ = try await client.request("GET", "/after")
            }
        }
    }

    @Test func requestsOutlivingTheGracePeriodGet503() async throws {
        let started = Counter()
        let server = HTTPServer(configuration: .init(port: 0, threadCount: 1), logger: Self.quietLogger()) { _ in
            started.increment()
            try? await Task.sleep(for: .seconds(30))
            return .text("too late")
        }
        try server.start()
        try await stoppingAfterwards(server) {
            let client = HTTPTestClient(port: server.port)
            async let stuck = client.request("GET", "/stuck")
            try await waitUntil("the stuck request to reach its handler") { started.value > 0 }
            await server.shutdown(gracePeriod: .milliseconds(100))
            #expect(try await stuck.status == 503)
        }
    }

    @Test func shutdownIsIdempotentAndConcurrent() async throws {
        let server = HTTPServer(configuration: .init(port: 0), logger: Self.quietLogger()) { _ in .text("ok") }
        try server.start()
        try await stoppingAfterwards(server) {
            async let first: Void = server.shutdown(gracePeriod: .seconds(1))
            async let second: Void = server.shutdown(gracePeriod: .seconds(1))
            _ = await (first, second)
            await server.shutdown(gracePeriod: .seconds(1))
            #expect(throws: HTTPServerError.alreadyStarted) { try server.start() }
        }
    }

    @Test func portZeroIsReadBackAndABusyPortIsReported() async throws {
        let first = HTTPServer(configuration: .init(port: 0), logger: Self.quietLogger()) { _ in .text("ok") }
        try first.start()
        try await stoppingAfterwards(first) {
            #expect(first.port > 0)
            let second = HTTPServer(configuration: .init(port: first.port), logger: Self.quietLogger()) { _ in .text("ok") }
            #expect(throws: HTTPServerError.addressInUse(host: "127.0.0.1", port: first.port)) { try second.start() }
            let bad = HTTPServer(configuration: .init(host: "example.com", port: 0), logger: Self.quietLogger()) { _ in
                .text("ok")
            }
            #expect(throws: HTTPServerError.invalidHost("example.com")) { try bad.start() }
        }
    }
}
