import Foundation
import HTTPServer
import HTTPTestClient
import Logging

/// Log records kept in memory so tests can assert what the access log says (and does not).
final class LogRecorder: @unchecked Sendable {
    struct Entry {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let lock = NSLock()
    private var stored: [Entry] = []

    var entries: [Entry] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func append(_ entry: Entry) {
        lock.lock()
        defer { lock.unlock() }
        stored.append(entry)
    }

    var logger: Logger {
        Logger(label: "test") { _ in RecordingHandler(recorder: self) }
    }
}

private struct RecordingHandler: LogHandler {
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged: [String: String] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            merged[key] = "\(value)"
        }
        recorder.append(.init(level: event.level, message: "\(event.message)", metadata: merged))
    }
}

/// Starts a server on 127.0.0.1 port 0 with `responder`, runs `body`, then shuts it down.
func withServer<T>(
    configuration: HTTPServer.Configuration = HTTPServer.Configuration(port: 0, threadCount: 2),
    recorder: LogRecorder = LogRecorder(),
    responder: @escaping Responder,
    _ body: (HTTPServer, HTTPTestClient) async throws -> T
) async throws -> T {
    var configuration = configuration
    configuration.port = 0
    let server = HTTPServer(configuration: configuration, logger: recorder.logger, responder: responder)
    try server.start()
    let client = HTTPTestClient(port: server.port, host: configuration.host == "::1" ? "::1" : "127.0.0.1")
    do {
        let result = try await body(server, client)
        await server.shutdown(gracePeriod: .seconds(2))
        return result
    } catch {
        await server.shutdown(gracePeriod: .seconds(2))
        throw error
    }
}

/// Runs `body` and then shuts `servers` down, also when `body` throws: for tests that start and
/// stop servers by hand because stopping is what they check (`shutdown` is idempotent).
func stoppingAfterwards<T>(_ servers: HTTPServer..., body: () async throws -> T) async throws -> T {
    do {
        let result = try await body()
        for server in servers { await server.shutdown(gracePeriod: .seconds(1)) }
        return result
    } catch {
        for server in servers { await server.shutdown(gracePeriod: .seconds(1)) }
        throw error
    }
}

/// Same, with a router.
func withServer<T>(
    router: Router,
    configuration: HTTPServer.Configuration = HTTPServer.Configuration(port: 0, threadCount: 2),
    recorder: LogRecorder = LogRecorder(),
    _ body: (HTTPServer, HTTPTestClient) async throws -> T
) async throws -> T {
    try await withServer(configuration: configuration, recorder: recorder, responder: router.responder, body)
}

/// An error whose text must never reach a client.
struct SecretError: Error, CustomStringConvertible {
    var description: String { "database password is hunter2" }
}
