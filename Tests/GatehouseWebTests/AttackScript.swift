import Foundation
import HTTPTestClient

/// What an attacker's script does against the JSON APIs: posts JSON, reads JSON, and reads the
/// claims of a token it was handed (JWT payloads are not secret).
struct AttackScript {
    let port: Int

    /// A JSON request; `token` goes out as PocketBase SDKs send it (raw) unless `bearer` is set.
    func call(
        _ method: String, _ path: String, _ json: [String: Any]? = nil, token: String? = nil, bearer: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> TestResponse {
        var all = headers
        if let token { all.append(("Authorization", token)) }
        if let bearer { all.append(("Authorization", "Bearer \(bearer)")) }
        var body: [UInt8] = []
        if let json {
            body = Array(try JSONSerialization.data(withJSONObject: json))
            all.append(("Content-Type", "application/json"))
        }
        return try await HTTPTestClient(port: port).request(method, path, headers: all, body: body)
    }

    /// The payload claims of a JWT.
    static func claims(of token: String) throws -> [String: Any] {
        let parts = token.split(separator: ".")
        guard parts.count == 3,
            let claims = try JSONSerialization.jsonObject(with: Data(base64URL: String(parts[1]))) as? [String: Any]
        else { throw TestFailure("not a JWT: \(token)") }
        return claims
    }

    /// The `token` query parameter of a mailed link.
    static func linkToken(in link: String) throws -> String {
        guard let items = URLComponents(string: link)?.queryItems, let token = items.first(where: { $0.name == "token" })?.value
        else { throw TestFailure("no token in \(link)") }
        return token
    }
}

extension TestGatehouse {
    var script: AttackScript { AttackScript(port: port) }

    /// A browser that signed `email` up on the pages (signed in, unless the address must be verified first).
    func signedUpBrowser(_ email: String, password: String) async throws -> Browser {
        let browser = self.browser()
        _ = try await browser.get("/auth/sign-up")
        _ = try await browser.post("/auth/sign-up", [("email", email), ("password", password)])
        return browser
    }

    /// A PocketBase superuser token (`_superusers/auth-with-password`) for an existing superuser.
    func pocketBaseSuperuserToken(_ email: String, password: String = "staff-password-1") async throws -> String {
        let answer = try await script.call(
            "POST", "/api/collections/_superusers/auth-with-password", ["identity": email, "password": password])
        guard let token = answer.json["token"] as? String else { throw TestFailure("superuser auth: \(answer.text)") }
        return token
    }

    /// The token of the newest mailed link to `email` whose subject contains `subject`.
    func mailedLinkToken(to email: String, subject: String) async throws -> String {
        guard
            let link = try await mails(to: email).first(where: { ($0["subject"] as? String)?.contains(subject) == true })?[
                "link"] as? String
        else { throw TestFailure("no \"\(subject)\" link mailed to \(email)") }
        return try AttackScript.linkToken(in: link)
    }
}
