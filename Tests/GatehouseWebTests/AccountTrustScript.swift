import Foundation
import GatehouseWeb
import HTTPTestClient
import Secrets
import WebAuthnTestSupport

/// What the account-trust tests do over HTTP on every way in: sign an address up as an attacker
/// would (returning what the attacker then holds, each with a probe that says whether it still
/// works), and prove the address as its owner would.
struct AccountTrustScript {
    let gatehouse: OAuthGatehouse
    var port: Int { gatehouse.port }
    var script: AttackScript { AttackScript(port: port) }
    /// Passkeys need a host name, not an IP literal.
    var localhost: [(String, String)] { [("Host", "localhost:\(port)")] }

    /// One thing the attacker holds; `alive` asks the server whether it still works.
    struct Holding: Sendable {
        var name: String
        var alive: @Sendable () async throws -> Bool
    }

    // MARK: The wire calls

    /// A Descope API call; `refresh` goes after the project id as the SDK sends it.
    func descope(_ path: String, _ body: [String: Any], refresh: String? = nil) async throws -> TestResponse {
        let project = DescopeProject.generated(from: try gatehouse.database.secretKey(named: "descope-project-id")).ids[0]
        let bearer = refresh.map { project + ":" + $0 } ?? project
        return try await script.call("POST", path, body, bearer: bearer, headers: localhost)
    }

    /// A SuperTokens-core call, as the backend SDK makes it on loopback.
    func superTokens(_ path: String, _ body: [String: Any]) async throws -> TestResponse {
        try await script.call("POST", path, body, headers: [("cdi-version", "5.4"), ("api-key", TestGatehouse.superTokensAPIKey)])
    }

    func pocketBase(_ action: String, _ body: [String: Any]) async throws -> TestResponse {
        try await script.call("POST", "/api/collections/users/" + action, body)
    }

    /// The newest mail to `email` that carries a code, or a link.
    func newestMail(to email: String, with key: String) async throws -> String {
        let target = "/_/api/mailbox?to=" + (email.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? email)
        let response = try await HTTPTestClient(port: port).request("GET", target)
        let mails = (try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]) ?? []
        guard let value = mails.lazy.compactMap({ $0[key] as? String }).first else {
            throw TestFailure("no mail with a \(key) to \(email)")
        }
        return value
    }

    // MARK: What the attacker holds

    /// A password that signs in wherever passwords do (Descope's sign-in admits unproven accounts).
    func password(_ email: String, _ password: String) -> Holding {
        Holding(name: "password") {
            try await descope("/v1/auth/password/signin", ["loginId": email, "password": password]).status == 200
        }
    }

    /// A passkey on the account: Descope's sign-in start answers `E067010` for an account with none.
    func passkey(_ email: String) -> Holding {
        Holding(name: "passkey") {
            try await descope(
                "/v1/auth/webauthn/signin/start", ["loginId": email, "origin": "http://localhost:\(port)"]
            ).status == 200
        }
    }

    /// A Descope session: its refresh JWT still refreshes.
    func descopeSession(_ refresh: String) -> Holding {
        Holding(name: "Descope session") { try await descope("/v1/auth/refresh", [:], refresh: refresh).status == 200 }
    }

    /// A SuperTokens session: its access token still checks out against the database.
    func superTokensSession(_ access: String) -> Holding {
        Holding(name: "SuperTokens session") {
            let verified = try await superTokens(
                "/recipe/session/verify",
                ["accessToken": access, "doAntiCsrfCheck": false, "enableAntiCsrf": false, "checkDatabase": true])
            return verified.json["status"] as? String == "OK"
        }
    }

    /// A page session: the browser still reaches `/account`.
    func pageSession(_ browser: Browser) -> Holding {
        Holding(name: "page session") { try await browser.get("/account", follow: false).status == 200 }
    }

    // MARK: Passkey ceremonies

    /// A software authenticator for this server's `localhost` origin.
    func authenticator() throws -> SoftwareAuthenticator {
        var authenticator = try SoftwareAuthenticator()
        authenticator.origin = "http://localhost:\(port)"
        return authenticator
    }

    /// A passkey made by `authenticator` for the pages' passkey sign-up of `email`.
    func signUpWithPasskeyOnThePages(_ email: String, _ authenticator: SoftwareAuthenticator) async throws -> TestResponse {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up", headers: localhost)
        let options = try await browser.post("/auth/sign-up/passkey/options", [("email", email)], headers: localhost)
        guard let publicKey = options.json["publicKey"] as? [String: Any], let user = options.json["user"] as? String,
            let challenge = (publicKey["challenge"] as? String).flatMap(Base64URL.decode)
        else { throw TestFailure("passkey sign-up options answered \(options.status): \(options.text)") }
        return try await browser.post(
            "/auth/sign-up/passkey",
            [("email", email), ("user", user), ("credential", try authenticator.registrationJSON(challenge: challenge))],
            headers: localhost)
    }

    /// Descope's `webauthn/signup` start and finish for `email` with `authenticator`.
    func signUpWithPasskeyOnDescope(_ email: String, _ authenticator: SoftwareAuthenticator) async throws -> TestResponse {
        let start = try await descope(
            "/v1/auth/webauthn/signup/start",
            ["loginId": email, "origin": "http://localhost:\(port)", "user": ["name": "Mallory"]])
        guard let transaction = start.json["transactionId"] as? String, let options = start.json["options"] as? String,
            let decoded = try JSONSerialization.jsonObject(with: Data(options.utf8)) as? [String: Any],
            let publicKey = decoded["publicKey"] as? [String: Any],
            let challenge = (publicKey["challenge"] as? String).flatMap(Base64URL.decode)
        else { throw TestFailure("webauthn/signup/start answered \(start.status): \(start.text)") }
        return try await descope(
            "/v1/auth/webauthn/signup/finish",
            ["transactionId": transaction, "response": try authenticator.registrationJSON(challenge: challenge)])
    }

    /// A passkey sign-in on the pages for `email` with `authenticator` (as its `signCount`th use).
    func signInWithPasskeyOnThePages(
        _ email: String, _ authenticator: SoftwareAuthenticator, userHandle: String, signCount: UInt32, browser: Browser
    ) async throws -> TestResponse {
        _ = try await browser.get("/auth/sign-in", headers: localhost)
        let options = try await browser.post("/auth/passkey/options", [("email", email)], headers: localhost)
        guard let publicKey = options.json["publicKey"] as? [String: Any],
            let challenge = (publicKey["challenge"] as? String).flatMap(Base64URL.decode)
        else { throw TestFailure("passkey options answered \(options.status): \(options.text)") }
        let assertion = try authenticator.assertionJSON(
            challenge: challenge, userHandle: Base64URL.encode(Array(userHandle.utf8)), signCount: signCount)
        return try await browser.post("/auth/passkey/sign-in", [("credential", assertion)], headers: localhost)
    }

    /// Descope's `webauthn/signin` start and finish for `email` with `authenticator` (as its
    /// `signCount`th use).
    func signInWithPasskeyOnDescope(
        _ email: String, _ authenticator: SoftwareAuthenticator, userHandle: String, signCount: UInt32
    ) async throws -> TestResponse {
        let start = try await descope(
            "/v1/auth/webauthn/signin/start", ["loginId": email, "origin": "http://localhost:\(port)"])
        guard let transaction = start.json["transactionId"] as? String,
            let challenge = Base64URL.decode(transaction)
        else { throw TestFailure("webauthn/signin/start answered \(start.status): \(start.text)") }
        let assertion = try authenticator.assertionJSON(challenge: challenge, userHandle: userHandle, signCount: signCount)
        return try await descope("/v1/auth/webauthn/signin/finish", ["transactionId": transaction, "response": assertion])
    }

    // MARK: A live provider

    /// A sign-in through the live mock as `subject`: the callback's answer.
    func signInThroughMock(_ browser: Browser, _ mock: OIDCProviderMock, subject: String) async throws -> TestResponse {
        let start = try await browser.get("/auth/oauth/mock", follow: false)
        guard let location = start.header("Location") else { throw TestFailure("start answered \(start.status)") }
        return try await browser.get(pathAndQuery(try await mock.authorize(location, as: subject)), follow: false)
    }
}
