import Foundation
import HTTPTestClient
import TestScope

/// The real `oidc-provider-mock` (PyPI, Python ≥ 3.12) started on a free loopback port.
/// Missing Python or package fails the test with the command that installs it.
final class OIDCProviderMock: Stoppable, @unchecked Sendable {
    let port: Int
    private let process: Process
    var issuer: String { "http://127.0.0.1:\(port)" }

    init() async throws {
        port = try FreePort.find()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [Self.python, "-m", "oidc_provider_mock", "--host", "127.0.0.1", "--port", String(port)]
        var environment = ProcessInfo.processInfo.environment
        // A pyenv shim that started this process (python running `swift test`) leaves its own version
        // in PYENV_VERSION; python3.12 needs a 3.12 one.
        if let version = Self.pyenv312, environment["PYENV_VERSION"]?.hasPrefix("3.12") != true {
            environment["PYENV_VERSION"] = version
        }
        process.environment = environment
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("oidc-mock-\(port).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        self.process = process
        try stopsWithTest()
        for _ in 0..<100 {
            if let response = try? await HTTPTestClient(port: port, timeout: .seconds(1)).request(
                "GET", "/.well-known/openid-configuration"),
                response.status == 200
            {
                return
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(process.processIdentifier, SIGKILL)
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw TestFailure(
            """
            oidc-provider-mock did not start (\(Self.python) -m oidc_provider_mock). Install it with:
              python3.12 -m pip install 'oidc-provider-mock==0.4.*'   (or run `make test-deps`)
            Output: \(output.suffix(800))
            """)
    }

    /// SIGKILL: uvicorn's graceful SIGTERM waits for kept-alive client connections, which may never close.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Sets the claims the mock puts in tokens for `subject` (`PUT /users/{sub}`).
    func setUser(_ subject: String, _ claims: [String: Any]) async throws {
        let body = try JSONSerialization.data(withJSONObject: claims)
        let response = try await HTTPTestClient(port: port).request(
            "PUT", "/users/\(subject)", headers: [("Content-Type", "application/json")], body: Array(body))
        guard response.status == 204 else { throw TestFailure("mock PUT /users answered \(response.status)") }
    }

    /// Signs in at the mock's authorize page as `subject`; returns the redirect to Gatehouse's callback.
    func authorize(_ authorizationURL: String, as subject: String) async throws -> String {
        let response = try await HTTPTestClient(port: port).request(
            "POST", pathAndQuery(authorizationURL), headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: FormBody.encode([("sub", subject)]))
        guard response.status == 302, let location = response.header("Location") else {
            throw TestFailure("mock authorize answered \(response.status): \(response.text.prefix(300))")
        }
        return location
    }

    static let python = ProcessInfo.processInfo.environment["GATEHOUSE_PYTHON312"] ?? "python3.12"

    /// pyenv's newest 3.12 when pyenv manages Python here (its `python3.12` shim needs it selected).
    static let pyenv312: String? = {
        let root = ProcessInfo.processInfo.environment["PYENV_ROOT"] ?? NSHomeDirectory() + "/.pyenv"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root + "/versions")) ?? []
        return versions.filter { $0.hasPrefix("3.12") }.sorted().last
    }()
}

/// A free TCP port on 127.0.0.1 (bind to 0, read it back, close).
enum FreePort {
    static func find() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw TestFailure("bind failed") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw TestFailure("getsockname failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

extension OIDCProviderMock {
    /// Registers this mock on `gatehouse` as the live OIDC provider `mock` and makes `subject` a
    /// person it knows (the PocketBase-API OAuth2 tests' common start).
    func serveAsLiveProvider(to gatehouse: OAuthGatehouse, person subject: String, _ claims: [String: Any]) async throws {
        try await gatehouse.admin(
            "/_/api/providers",
            [
                "name": "mock", "type": "oidc", "issuer": issuer, "clientId": "gatehouse-test", "clientSecret": "s3cret",
                "scopes": ["openid", "email", "profile"], "mode": "live"
            ])
        try await setUser(subject, claims)
    }
}
