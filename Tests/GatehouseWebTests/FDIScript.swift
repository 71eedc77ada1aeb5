import Foundation
import HTTPTestClient

/// A SuperTokens frontend talking to Gatehouse's FDI as the SDKs do: `rid`, `fdi-version` and
/// `st-auth-mode` on every call, its tokens kept between calls (header mode: from
/// `st-access-token`/`st-refresh-token`; cookie mode: from the `sAccessToken`/`sRefreshToken` cookies).
final class FDIScript: @unchecked Sendable {
    let port: Int
    let cookieMode: Bool
    /// The loopback address it connects from (another client IP); nil: the default.
    var source: String?
    var accessToken: String?
    var refreshToken: String?
    /// The newest `front-token` answered.
    var frontToken: String?

    init(_ gatehouse: TestGatehouse, cookieMode: Bool = false, from source: String? = nil) {
        (self.port, self.cookieMode, self.source) = (gatehouse.port, cookieMode, source)
    }

    /// A frontend of the Gatehouse on `port` (one with providers, `OAuthGatehouse`).
    init(port: Int) { (self.port, cookieMode) = (port, false) }

    /// One call; `rid` nil sends none. Session headers in the answer replace the kept tokens.
    func call(
        _ method: String, _ path: String, _ body: [String: Any]? = nil, rid: String? = "session",
        extra: [(String, String)] = [], useRefreshToken: Bool = false
    ) async throws -> (status: Int, json: [String: Any], response: TestResponse) {
        var headers: [(String, String)] = [("fdi-version", "3.0,4.0,4.1"), ("st-auth-mode", cookieMode ? "cookie" : "header")]
        if let rid { headers.append(("rid", rid)) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let token = useRefreshToken ? refreshToken : accessToken
        if let token {
            headers.append(
                cookieMode
                    ? ("Cookie", (useRefreshToken ? "sRefreshToken=" : "sAccessToken=") + token)
                    : ("Authorization", "Bearer " + token))
        }
        let response = try await HTTPTestClient(port: port, source: source).request(
            method, path, headers: headers + extra,
            body: try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? [])
        keep(response)
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return (response.status, json ?? [:], response)
    }

    private func keep(_ response: TestResponse) {
        if let front = response.header("front-token") { frontToken = front }
        let cookies = response.setCookies
        let access = cookieMode ? cookies["sAccessToken"] : response.header("st-access-token")
        let refresh = cookieMode ? cookies["sRefreshToken"] : response.header("st-refresh-token")
        if let access { accessToken = access.isEmpty ? nil : access }
        if let refresh { refreshToken = refresh.isEmpty ? nil : refresh }
    }

    /// `signup` or `signin` with the two form fields.
    func emailPassword(_ route: String, _ email: String, _ password: String) async throws -> (status: Int, json: [String: Any]) {
        let answer = try await call(
            "POST", "/auth/" + route,
            ["formFields": [["id": "email", "value": email], ["id": "password", "value": password]]], rid: "emailpassword")
        return (answer.status, answer.json)
    }

    /// `POST session/refresh` with the kept refresh token.
    func refresh() async throws -> (status: Int, json: [String: Any], response: TestResponse) {
        try await call("POST", "/auth/session/refresh", useRefreshToken: true)
    }

    /// The newest `front-token`, decoded: `{uid, ate, up}`.
    var front: [String: Any] {
        guard let frontToken, let data = Data(base64Encoded: frontToken),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object
    }

    /// Whether the access token's `st-ev` claim (from the front-token) says the address is proven.
    var emailVerifiedClaim: Bool? {
        ((front["up"] as? [String: Any])?["st-ev"] as? [String: Any])?["v"] as? Bool
    }
}
