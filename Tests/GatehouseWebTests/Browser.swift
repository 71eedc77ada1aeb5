import Foundation
import HTTPTestClient

/// A minimal browser for tests: keeps cookies, remembers the last page's CSRF token and sends it
/// with form posts, and can follow redirects.
final class Browser: @unchecked Sendable {
    let port: Int
    let jar = CookieJar()
    private var csrfToken: String?
    private let lock = NSLock()

    /// The loopback address this browser's connections come from (another client on another IP).
    let source: String?

    init(port: Int, source: String? = nil) {
        self.port = port
        self.source = source
    }

    var client: HTTPTestClient { HTTPTestClient(port: port, source: source) }

    /// A GET; follows redirects when asked, and picks up the page's `_csrf` token.
    @discardableResult
    func get(_ target: String, follow: Bool = true, headers: [(String, String)] = []) async throws -> TestResponse {
        var response = try await send("GET", target, headers: headers)
        var hops = 0
        while follow, (300..<400).contains(response.status), let location = response.header("Location"), hops < 5 {
            response = try await send("GET", location, headers: headers)
            hops += 1
        }
        return response
    }

    /// A form POST with the current CSRF token added (unless `csrf` says otherwise).
    @discardableResult
    func post(
        _ target: String, _ fields: [(String, String)], csrf: String? = nil, follow: Bool = false,
        headers: [(String, String)] = []
    ) async throws -> TestResponse {
        let token = csrf ?? lock.withLock { csrfToken } ?? ""
        let body = FormBody.encode(fields + [("_csrf", token)])
        var response = try await send(
            "POST", target,
            headers: headers + [
                ("Content-Type", "application/x-www-form-urlencoded")
            ], body: body)
        if follow, (300..<400).contains(response.status), let location = response.header("Location") {
            response = try await get(location, headers: headers)
        }
        return response
    }

    func cookie(_ name: String) -> String? { jar[name] }

    private func send(
        _ method: String, _ target: String, headers: [(String, String)],
        body: [UInt8] = []
    ) async throws -> TestResponse {
        var all = headers
        all.append(contentsOf: jar.headers)
        let response = try await client.request(method, target, headers: all, body: body)
        jar.update(from: response)
        if let token = Self.csrfToken(in: response.text) { lock.withLock { csrfToken = token } }
        return response
    }

    static func csrfToken(in html: String) -> String? {
        guard let range = html.range(of: #"name="_csrf" value="([^"]+)""#, options: .regularExpression) else { return nil }
        let match = html[range]
        return match.split(separator: "\"").dropFirst(3).first.map(String.init)
    }
}
