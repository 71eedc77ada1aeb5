import Foundation
import HTTPTestClient
import Secrets
import Store

/// A running Gatehouse that console tests add superusers to and sign in to, whatever backend it runs on.
protocol ConsoleHarness {
    var port: Int { get }
    var database: AppDatabase { get }
}

extension ConsoleHarness {
    /// Adds a superuser straight to the file, as `gatehouse superuser create` does.
    func createSuperuser(_ email: String, password: String) async throws {
        let hash = try await PasswordHasher(cost: .minimal, pool: BlockingWorkPool(threadCount: 1)).hash(password)
        _ = try await database.createSuperuser(id: SecureRandom.userID(), email: email, passwordHash: hash, at: Date())
    }

    /// A browser signed in to the console as a new superuser.
    func staffBrowser(email: String = "staff@example.com", password: String = "staff-password-1") async throws -> Browser {
        try await createSuperuser(email, password: password)
        let browser = Browser(port: port)
        _ = try await browser.get("/_/")
        let response = try await browser.post("/_/", [("email", email), ("password", password)])
        guard response.status == 303 else { throw TestFailure("console sign-in answered \(response.status)") }
        _ = try await browser.get("/_/audit")  // sign-in rotated the CSRF secret: pick up the new token
        return browser
    }

    /// A bearer token for the admin API, for a new superuser.
    func adminToken(email: String = "api-staff@example.com", password: String = "staff-password-1") async throws -> String {
        try await createSuperuser(email, password: password)
        let body = Array(#"{"email":"\#(email)","password":"\#(password)"}"#.utf8)
        let response = try await HTTPTestClient(port: port).request(
            "POST", "/_/api/auth", headers: [("Content-Type", "application/json")], body: body)
        guard response.status == 200,
            let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let token = json["token"] as? String
        else { throw TestFailure("api auth answered \(response.status)") }
        return token
    }
}

extension ConsoleHarness {
    /// The newest mails to `email`, read through the mailbox JSON API like a test script would.
    func mails(to email: String) async throws -> [[String: Any]] {
        let target = "/_/api/mailbox?to=" + (email.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? email)
        let response = try await HTTPTestClient(port: port).request("GET", target)
        guard response.status == 200,
            let list = try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]
        else {
            throw TestFailure("mailbox answered \(response.status): \(response.text)")
        }
        return list
    }
}

extension TestGatehouse: ConsoleHarness {}
extension ProxyGatehouse: ConsoleHarness {}
extension OAuthGatehouse: ConsoleHarness {}
