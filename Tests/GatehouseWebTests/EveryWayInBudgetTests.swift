import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 22 item 5 and issue 23 item 3: each limit is one budget, and every way in — the hosted
/// pages, the InsForge API, the PocketBase API — takes the same one. Each test performs the attack
/// that got through when the limits lived on the pages only (unlimited sign-ups, mails and
/// reset-code guesses through the JSON APIs).
@Suite(.stopsWhatItStarts) struct EveryWayInBudgetTests {
    static let password = "correct horse battery"

    private func insForge(
        _ gatehouse: TestGatehouse, _ path: String, _ body: [String: Any], from source: String? = nil
    ) async throws -> TestResponse {
        try await gatehouse.postJSON(path, body, from: source)
    }

    private func pocketBase(
        _ gatehouse: TestGatehouse, _ action: String, _ body: [String: Any], from source: String? = nil
    ) async throws -> TestResponse {
        try await gatehouse.postJSON("/api/collections/users/" + action, body, anonKey: false, from: source)
    }

    private func pageSignUp(_ gatehouse: TestGatehouse, _ email: String, from source: String) async throws -> TestResponse {
        let browser = gatehouse.browser(from: source)
        _ = try await browser.get("/auth/sign-up")
        return try await browser.post("/auth/sign-up", [("email", email), ("password", Self.password), ("name", "")])
    }

    /// Runs `signUp` for 50 addresses at once and expects each to be accepted.
    private func fiftySignUps(_ signUp: @escaping @Sendable (String) async throws -> TestResponse, accepted: Int) async throws {
        try await withThrowingTaskGroup(of: TestResponse.self) { group in
            for index in 0..<50 { group.addTask { try await signUp("new-\(index)-\(UUID().uuidString)@example.com") } }
            for try await response in group { #expect(response.status == accepted, "\(response.status) \(response.text)") }
        }
    }

    /// A PocketBase answer in PocketBase's own 429 shape, with the wait in `Retry-After`.
    private func expectPocketBaseThrottled(_ response: TestResponse, _ what: String) {
        #expect(response.status == 429, "\(what): \(response.status) \(response.text)")
        #expect(response.json["message"] as? String == "Too Many Requests." && response.json["status"] as? Int == 429, "\(what)")
        #expect((response.json["data"] as? [String: Any])?.isEmpty == true, "\(what): \(response.text)")
        #expect(Int(response.header("Retry-After") ?? "") ?? 0 > 0, "\(what): Retry-After")
    }

    /// An InsForge answer in InsForge's 429 shape, with the wait in `Retry-After`.
    private func expectInsForgeThrottled(_ response: TestResponse, _ what: String) {
        #expect(response.status == 429, "\(what): \(response.status) \(response.text)")
        #expect(response.json["error"] as? String == "TOO_MANY_REQUESTS" && response.json["statusCode"] as? Int == 429, "\(what)")
        #expect(response.json["message"] is String, "\(what): the InsForge SDK drops a body without a message")
        #expect(Int(response.header("Retry-After") ?? "") ?? 0 > 0, "\(what): Retry-After")
    }

    @Test func theFiftyFirstSignUpFromOneAddressIsRefusedThroughEveryWayIn() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)

        try await fiftySignUps({ try await pageSignUp(gatehouse, $0, from: "127.0.0.2") }, accepted: 303)
        let page = try await pageSignUp(gatehouse, "page-51@example.com", from: "127.0.0.2")
        #expect(page.status == 429 && page.text.contains("Too many new accounts"), "\(page.status)")
        #expect(Int(page.header("Retry-After") ?? "") ?? 0 > 0)

        try await fiftySignUps(
            { try await insForge(gatehouse, "/api/auth/users", ["email": $0, "password": Self.password], from: "127.0.0.3") },
            accepted: 200)
        let insForge51 = try await insForge(
            gatehouse, "/api/auth/users", ["email": "insforge-51@example.com", "password": Self.password], from: "127.0.0.3")
        expectInsForgeThrottled(insForge51, "InsForge sign-up 51")

        try await fiftySignUps(
            {
                try await pocketBase(
                    gatehouse, "records", ["email": $0, "password": Self.password, "passwordConfirm": Self.password],
                    from: "127.0.0.4")
            }, accepted: 200)
        let pocketBase51 = try await pocketBase(
            gatehouse, "records",
            ["email": "pocketbase-51@example.com", "password": Self.password, "passwordConfirm": Self.password],
            from: "127.0.0.4")
        expectPocketBaseThrottled(pocketBase51, "PocketBase sign-up 51")
        for email in ["page-51@example.com", "insforge-51@example.com", "pocketbase-51@example.com"] {
            #expect(try await gatehouse.database.user(email: email) == nil, "\(email) was not created")
        }

        // A sliding hour, not a ban: an hour on, the address may sign up again.
        gatehouse.clock.advance(3601)
        #expect(try await pageSignUp(gatehouse, "page-later@example.com", from: "127.0.0.2").status == 303)
        await gatehouse.stop()
    }

    /// PocketBase answers every mail request alike — 204, or a (fake) `otpId` — so a request over an
    /// address's budget is answered the same and sends nothing; a source over its budget gets 429.
    @Test func pocketBaseMailRequestsMeetThePerAddressAndPerSourceCaps() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let email = "pb-mails@example.com"
        let created = try await pocketBase(
            gatehouse, "records", ["email": email, "password": Self.password, "passwordConfirm": Self.password])
        #expect(created.status == 200, "\(created.text)")
        #expect(try await gatehouse.mails(to: email).isEmpty, "PocketBase's create mails nothing")

        // Verification: the app's first request mails and starts the address's minute.
        for _ in 0..<3 {
            #expect(try await pocketBase(gatehouse, "request-verification", ["email": email], from: "127.0.0.5").status == 204)
        }
        #expect(try await gatehouse.mails(to: email).count == 1, "one verification mail within the minute")
        gatehouse.clock.advance(61)
        for _ in 0..<3 {
            #expect(try await pocketBase(gatehouse, "request-verification", ["email": email], from: "127.0.0.5").status == 204)
        }
        #expect(try await gatehouse.mails(to: email).count == 2, "one a minute")

        // Reset: three mails per address in 15 minutes.
        for _ in 0..<6 {
            #expect(try await pocketBase(gatehouse, "request-password-reset", ["email": email], from: "127.0.0.6").status == 204)
        }
        #expect(try await gatehouse.mails(to: email).count == 5, "three reset mails")

        // Sign-in codes: one a minute, ten an hour, each answered with an id.
        for round in 0..<12 {
            let asked = try await pocketBase(gatehouse, "request-otp", ["email": email], from: "127.0.0.7")
            #expect(asked.status == 200 && (asked.json["otpId"] as? String)?.isEmpty == false, "\(asked.text)")
            if round > 0 { gatehouse.clock.advance(61) }
        }
        #expect(try await gatehouse.mails(to: email).count == 15, "ten sign-in codes in the hour")

        // One source, many addresses: 20 mails an hour, then 429 in PocketBase's shape.
        for index in 0..<20 {
            let asked = try await pocketBase(
                gatehouse, "request-password-reset", ["email": "stranger-\(index)@example.com"], from: "127.0.0.8")
            #expect(asked.status == 204)
        }
        expectPocketBaseThrottled(
            try await pocketBase(gatehouse, "request-password-reset", ["email": "one-more@example.com"], from: "127.0.0.8"),
            "request-password-reset 21")
        expectPocketBaseThrottled(
            try await pocketBase(gatehouse, "request-otp", ["email": "one-more@example.com"], from: "127.0.0.8"),
            "request-otp 21")
        expectPocketBaseThrottled(
            try await pocketBase(gatehouse, "request-verification", ["email": "one-more@example.com"], from: "127.0.0.8"),
            "request-verification 21")
        await gatehouse.stop()
    }

    /// InsForge's own backend answers a per-address cool-down with 429 (whatever the address), so
    /// Gatehouse does too: the budgets are taken for every address, known or not.
    @Test func insForgeMailRequestsMeetThePerAddressAndPerSourceCaps() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let email = "insforge-mails@example.com"
        #expect(try await insForge(gatehouse, "/api/auth/users", ["email": email, "password": Self.password]).status == 200)
        #expect(try await gatehouse.mails(to: email).count == 1)

        // The sign-up's own mail is outside the cool-down, which starts with the first send-verification.
        #expect(
            try await insForge(gatehouse, "/api/auth/email/send-verification", ["email": email], from: "127.0.0.5").status == 202)
        let tooSoon = try await insForge(gatehouse, "/api/auth/email/send-verification", ["email": email], from: "127.0.0.5")
        expectInsForgeThrottled(tooSoon, "send-verification within the first one's minute")
        gatehouse.clock.advance(61)
        #expect(
            try await insForge(gatehouse, "/api/auth/email/send-verification", ["email": email], from: "127.0.0.5").status == 202)
        #expect(try await gatehouse.mails(to: email).count == 3)

        var resets: [Int] = []
        for _ in 0..<5 {
            resets.append(
                try await insForge(gatehouse, "/api/auth/email/send-reset-password", ["email": email], from: "127.0.0.6").status)
        }
        #expect(resets == [202, 202, 202, 429, 429])
        #expect(try await gatehouse.mails(to: email).count == 6, "three reset mails")

        var codes: [Int] = []
        for round in 0..<12 {
            codes.append(try await insForge(gatehouse, "/api/auth/email/send-otp", ["email": email], from: "127.0.0.7").status)
            if round > 0 { gatehouse.clock.advance(61) }
        }
        #expect(codes == [202, 429] + Array(repeating: 202, count: 9) + [429], "one a minute, ten an hour")
        #expect(try await gatehouse.mails(to: email).count == 16)

        for index in 0..<20 {
            let asked = try await insForge(
                gatehouse, "/api/auth/email/send-reset-password", ["email": "stranger-\(index)@example.com"], from: "127.0.0.8")
            #expect(asked.status == 202)
        }
        for path in ["/api/auth/email/send-reset-password", "/api/auth/email/send-verification", "/api/auth/email/send-otp"] {
            expectInsForgeThrottled(
                try await insForge(gatehouse, path, ["email": "one-more@example.com"], from: "127.0.0.8"), "\(path) 21")
        }
        await gatehouse.stop()
    }

    /// The 44,812 guesses of issue 22 went to InsForge's code exchange, a fresh code every five
    /// tries. Code and token checks are one budget per source, shared by every way in.
    @Test func resetCodeGuessesThroughEitherAPIMeet429() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let email = "reset-guess@example.com"
        #expect(try await insForge(gatehouse, "/api/auth/users", ["email": email, "password": Self.password]).status == 200)
        #expect(try await insForge(gatehouse, "/api/auth/email/send-reset-password", ["email": email]).status == 202)

        for guess in 0..<30 {
            let code = String(format: "%06d", guess)
            let answer = try await insForge(
                gatehouse, "/api/auth/email/exchange-reset-password-token", ["email": email, "code": code], from: "127.0.0.2")
            #expect(answer.status == 400, "guess \(guess): \(answer.text)")
        }
        expectInsForgeThrottled(
            try await insForge(
                gatehouse, "/api/auth/email/exchange-reset-password-token", ["email": email, "code": "999999"],
                from: "127.0.0.2"), "exchange 31")
        expectPocketBaseThrottled(
            try await pocketBase(
                gatehouse, "confirm-password-reset",
                [
                    "token": "made-up-token", "password": "a much stronger new passphrase 7",
                    "passwordConfirm": "a much stronger new passphrase 7"
                ],
                from: "127.0.0.2"), "the same source through PocketBase")

        for guess in 0..<30 {
            let answer = try await pocketBase(
                gatehouse, "confirm-password-reset",
                [
                    "token": "guess-\(guess)", "password": "a much stronger new passphrase 7",
                    "passwordConfirm": "a much stronger new passphrase 7"
                ],
                from: "127.0.0.3")
            #expect(answer.status == 400, "guess \(guess): \(answer.text)")
        }
        expectPocketBaseThrottled(
            try await pocketBase(
                gatehouse, "confirm-password-reset",
                [
                    "token": "guess-31", "password": "a much stronger new passphrase 7",
                    "passwordConfirm": "a much stronger new passphrase 7"
                ], from: "127.0.0.3"),
            "confirm-password-reset 31")
        await gatehouse.stop()
    }

    /// The counts are reached through their owner only (`Budgets`): no other file of the operations
    /// or the web module reads or writes the store's rate-limit events.
    @Test func onlyTheBudgetsOwnerReachesTheCounts() throws {
        let owners: Set<String> = [
            "Accounts/Limits/Budgets.swift", "Accounts/Limits/PasswordTry.swift",
            // `Budgets`' own view of its back-offs for staff (and their lifting).
            "Accounts/Limits/Lockouts.swift",
            // `Budgets` forgetting every count for the test controls' reset.
            "Accounts/Limits/Budgets+Reset.swift"
        ]
        var offenders: [String] = []
        for module in ["Accounts", "GatehouseWeb"] {
            let root = TestGatehouse.repositoryRoot + "/Sources/"
            #expect(FileManager.default.fileExists(atPath: root + module))
            let files = FileManager.default.enumerator(atPath: root + module)
            while let path = files?.nextObject() as? String {
                let file = module + "/" + path
                guard path.hasSuffix(".swift"), !owners.contains(file) else { continue }
                let text = try String(contentsOfFile: root + file, encoding: .utf8)
                if text.contains("withRateLedger") || text.contains("rateWindow(") { offenders.append(file) }
            }
        }
        #expect(owners.allSatisfy { FileManager.default.fileExists(atPath: TestGatehouse.repositoryRoot + "/Sources/" + $0) })
        #expect(offenders.isEmpty, "\(offenders)")
    }
}
