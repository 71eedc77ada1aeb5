import Foundation
import Logging
import MailCatcher
import PocketBaseTestSupport
import Secrets
import Store
import TestScope
import Testing

/// The SMTP mail catcher with PocketBase's own mails: a real `pocketbase` binary (0.40.6 checked)
/// sends its verification and OTP mails to a `MailCatcher`, and they land in the dev mailbox with
/// the link and the code pulled out. A missing binary fails the test (never a skip).
@Suite(.stopsWhatItStarts) struct PocketBaseMailCatcherTests {
    /// A catcher on 127.0.0.1 (port 0) into a dev mailbox over a temp `AppDatabase`, and a PocketBase whose SMTP
    /// settings point at it; both are stopped whatever `body` does.
    private func withCatchingPocketBase(
        _ body: (PocketBaseServer, MailboxMailer, _ superuserToken: String) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-pbmail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try AppDatabase(path: directory.appendingPathComponent("gatehouse.sqlite").path)
        var logger = Logger(label: "mail-catcher-test")
        logger.logLevel = .warning
        let mailbox = try MailboxMailer(database: database, keyedHash: KeyedHash(key: database.secretKey(named: "keyed-hash")))
        let catcher = MailCatcher(host: "127.0.0.1", port: 0, mailer: mailbox, logger: logger)
        try await catcher.start()

        let pocketBase: PocketBaseServer
        do {
            pocketBase = try await PocketBaseServer.start()
        } catch {
            await catcher.shutdown()
            throw error
        }
        do {
            let token = try await pocketBase.superuserToken()
            // The field names PocketBase 0.40.6 takes (README, "Mail catcher").
            try await pocketBase.request(
                "PATCH", "/api/settings", token: token,
                body: [
                    "meta": [
                        "appName": "Acme", "appURL": "http://127.0.0.1:1",
                        "senderAddress": "noreply@example.com", "senderName": "Acme"
                    ],
                    "smtp": ["enabled": true, "host": "127.0.0.1", "port": catcher.port, "tls": false]
                ])
            try await body(pocketBase, mailbox, token)
        } catch {
            await pocketBase.stop()
            await catcher.shutdown()
            throw error
        }
        await pocketBase.stop()
        await catcher.shutdown()
    }

    /// Polls the mailbox (bounded: 15 s) for a mail to `email` that `matches`.
    private func waitForMail(
        _ mailbox: MailboxMailer, to email: String,
        where matches: (MailRecord) -> Bool
    ) async throws -> MailRecord {
        let deadline = ContinuousClock.now.advanced(by: .seconds(15))
        while ContinuousClock.now < deadline {
            if let mail = try await mailbox.mails(to: email, limit: 20).first(where: matches) { return mail }
            try await Task.sleep(for: .milliseconds(100))
        }
        let seen = try await mailbox.mails(to: nil, limit: 20).map { "\($0.recipient): \($0.subject)" }
        throw SupportError("no matching mail to \(email) within 15 s; the mailbox holds \(seen)")
    }

    private func createUser(_ pocketBase: PocketBaseServer) async throws -> String {
        let email = "ada-\(UUID().uuidString.prefix(6).lowercased())@example.com"
        try await pocketBase.request(
            "POST", "/api/collections/users/records",
            body: [
                "email": email, "password": "correct horse battery", "passwordConfirm": "correct horse battery"
            ])
        return email
    }

    @Test func verificationMailArrivesWithItsLink() async throws {
        try await withCatchingPocketBase { pocketBase, mailbox, _ in
            let email = try await createUser(pocketBase)
            try await pocketBase.request("POST", "/api/collections/users/request-verification", body: ["email": email])

            let mail = try await waitForMail(mailbox, to: email) { $0.subject.contains("Verify") }
            #expect(mail.subject == "Verify your Acme email")
            let link = try #require(mail.link, "no link pulled out of: \(mail.text)")
            #expect(link.hasPrefix("http://127.0.0.1:1/_/#/auth/confirm-verification/"), "link: \(link)")
            let token = String(link.dropFirst("http://127.0.0.1:1/_/#/auth/confirm-verification/".count))
            #expect(token.split(separator: ".").count == 3, "a JWT: \(token)")
            #expect(mail.code == nil, "a verification mail has no code")

            // The caught token is the real one: PocketBase accepts it.
            try await pocketBase.request("POST", "/api/collections/users/confirm-verification", body: ["token": token])
        }
    }

    @Test func otpMailArrivesWithItsEightDigitCode() async throws {
        try await withCatchingPocketBase { pocketBase, mailbox, token in
            try await pocketBase.request("PATCH", "/api/collections/users", token: token, body: ["otp": ["enabled": true]])
            let email = try await createUser(pocketBase)
            let reply = try await pocketBase.request("POST", "/api/collections/users/request-otp", body: ["email": email])
            let otpID = try #require(reply["otpId"] as? String, "request-otp answered \(reply)")

            let mail = try await waitForMail(mailbox, to: email) { $0.subject.contains("OTP") }
            #expect(mail.subject == "OTP for Acme")
            let code = try #require(mail.code, "no code pulled out of: \(mail.text)")
            #expect(code.count == 8 && code.allSatisfy { $0.isASCII && $0.isNumber }, "code: \(code)")

            // The caught code is the real one: PocketBase signs the user in with it.
            let auth = try await pocketBase.request(
                "POST", "/api/collections/users/auth-with-otp",
                body: ["otpId": otpID, "password": code])
            #expect(auth["token"] is String)
        }
    }
}
