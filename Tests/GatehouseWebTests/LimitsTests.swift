import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 9, item 9: limits that used to help an attacker — a lock-out anyone could trigger from
/// anywhere, counters a restart wiped, and sessions that never went idle.
@Suite(.stopsWhatItStarts) struct LimitsTests {
    private func account(_ gatehouse: TestGatehouse, _ email: String, password: String) async throws {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        let response = try await browser.post("/auth/sign-up", [("email", email), ("password", password), ("name", "")])
        #expect(response.status == 303, "\(response.text)")
    }

    private func signIn(_ browser: Browser, _ email: String, _ password: String) async throws -> TestResponse {
        _ = try await browser.get("/auth/sign-in")
        return try await browser.post("/auth/sign-in", [("email", email), ("password", password)])
    }

    @Test func aStrangerElsewhereCannotLockTheOwnerOut() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        try await account(gatehouse, "victim@example.com", password: "the-real-password")
        let attacker = gatehouse.browser(from: "127.0.0.2")
        _ = try await attacker.get("/auth/sign-in")
        var answers: [Int] = []
        for attempt in 0..<20 {
            answers.append(
                try await attacker.post("/auth/sign-in", [("email", "victim@example.com"), ("password", "guess-\(attempt)")])
                    .status)
        }
        #expect(
            answers == Array(repeating: 401, count: 5) + Array(repeating: 429, count: 15),
            "five free tries, then the address is told to wait")
        let lockedPair = try await signIn(gatehouse.browser(from: "127.0.0.2"), "victim@example.com", "the-real-password")
        #expect(lockedPair.status == 429, "the attacker's own address is throttled, even with the password")

        let owner = try await signIn(gatehouse.browser(from: "127.0.0.1"), "victim@example.com", "the-real-password")
        #expect(owner.status == 303, "the owner from their own address signs in at once")
        #expect(owner.header("Location") == "/account")
        await gatehouse.stop()
    }

    @Test func aStrangerElsewhereCannotLockStaffOutOfTheConsole() async throws {
        let gatehouse = try await TestGatehouse()
        try await gatehouse.createSuperuser("boss@example.com", password: "staff-password-1")
        let attacker = gatehouse.browser(from: "127.0.0.5")
        _ = try await attacker.get("/_/")
        let first = try await attacker.post("/_/", [("email", "boss@example.com"), ("password", "guess")])
        for attempt in 0..<15 {
            let response = try await attacker.post("/_/", [("email", "boss@example.com"), ("password", "guess-\(attempt)")])
            #expect(response.status == first.status, "a throttled try answers like a wrong password")
        }
        let staff = gatehouse.browser(from: "127.0.0.1")
        _ = try await staff.get("/_/")
        let signedIn = try await staff.post("/_/", [("email", "boss@example.com"), ("password", "staff-password-1")])
        #expect(signedIn.status == 303, "the superuser from their own address signs in at once")
        await gatehouse.stop()
    }

    @Test func failuresFromManyAddressesMeetTheAccountCeiling() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        try await account(gatehouse, "ceiling@example.com", password: "the-real-password")
        // 20 addresses × 5 free failures each = 100 checked failures within the hour.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for host in 10..<30 {
                group.addTask {
                    let attacker = gatehouse.browser(from: "127.0.0.\(host)")
                    _ = try await attacker.get("/auth/sign-in")
                    for attempt in 0..<5 {
                        let response = try await attacker.post(
                            "/auth/sign-in", [("email", "ceiling@example.com"), ("password", "guess-\(attempt)")])
                        #expect(response.status == 401)
                    }
                }
            }
            try await group.waitForAll()
        }
        let refused = try await signIn(gatehouse.browser(from: "127.0.0.1"), "ceiling@example.com", "the-real-password")
        #expect(refused.status == 429, "100 failures an hour lock the account everywhere (ASVS V2.2.1)")
        #expect(refused.text.contains("Too many tries from this device: try again in"), "and the page says to wait")
        gatehouse.clock.advance(3601)
        let later = try await signIn(gatehouse.browser(from: "127.0.0.1"), "ceiling@example.com", "the-real-password")
        #expect(later.status == 303, "the ceiling is a sliding hour, not a permanent lock")
        await gatehouse.stop()
    }

    @Test func theBackOffGrowsAndSurvivesARestart() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        try await account(gatehouse, "victim@example.com", password: "the-real-password")
        let attacker = gatehouse.browser(from: "127.0.0.3")
        _ = try await attacker.get("/auth/sign-in")
        // Five free failures, then each one only after its wait: 1 s, 2 s, 4 s … (the clock is moved).
        for attempt in 0..<12 {
            let wrong = try await attacker.post(
                "/auth/sign-in", [("email", "victim@example.com"), ("password", "guess-\(attempt)")])
            #expect(wrong.status == 401)
            if (4..<11).contains(attempt) { gatehouse.clock.advance(pow(2, Double(attempt - 4)) + 0.5) }
        }
        // Twelve failures: the next try waits 2^7 = 128 s after the last one, restart or not.
        try await gatehouse.restart()
        let afterRestart = try await signIn(gatehouse.browser(from: "127.0.0.3"), "victim@example.com", "the-real-password")
        #expect(afterRestart.status == 429, "a restart cleared the failures")
        let page = try #require(Browser.csrfToken(in: afterRestart.text))
        #expect(!page.isEmpty)
        #expect(afterRestart.text.contains("try again in 25"), "a throttled try says how long to wait")

        // That refused try was the thirteenth failure for this address: the wait is now 2^8 = 256 s.
        gatehouse.clock.advance(130)
        let tooSoon = try await signIn(gatehouse.browser(from: "127.0.0.3"), "victim@example.com", "the-real-password")
        #expect(tooSoon.status == 429, "hammering while throttled lengthens the back-off")
        gatehouse.clock.advance(520)
        let later = try await signIn(gatehouse.browser(from: "127.0.0.3"), "victim@example.com", "the-real-password")
        #expect(later.status == 303, "after the back-off the right password works again")
        await gatehouse.stop()
    }

    @Test func aSessionUnusedForADayEndsAndAUsedOneLastsItsWeek() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        try await account(gatehouse, "idle@example.com", password: "the-real-password")
        let browser = gatehouse.browser()
        #expect(try await signIn(browser, "idle@example.com", "the-real-password").status == 303)

        // Used every 20 hours: never idle for a day, so it lives on past the idle limit…
        for _ in 0..<3 {
            gatehouse.clock.advance(20 * 3600)
            #expect(try await browser.get("/account", follow: false).status == 200)
        }
        // …then left alone for 25 hours: it has gone idle.
        gatehouse.clock.advance(25 * 3600)
        let idle = try await browser.get("/account", follow: false)
        #expect(idle.status == 303 && idle.header("Location")?.hasPrefix("/auth/sign-in") == true, "\(idle.status)")

        // The absolute lifetime (7 days) still ends a session used every day.
        let busy = gatehouse.browser()
        #expect(try await signIn(busy, "idle@example.com", "the-real-password").status == 303)
        let listed = try await busy.get("/account/sessions").text
        #expect(listed.components(separatedBy: "data-sign-out=").count == 2, "the idle session is no longer listed")
        for _ in 0..<7 {
            gatehouse.clock.advance(23 * 3600)
            #expect(try await busy.get("/account", follow: false).status == 200)
        }
        gatehouse.clock.advance(23 * 3600)
        #expect(try await busy.get("/account", follow: false).status == 303, "past 7 days")
        await gatehouse.stop()
    }

    /// Issue 42, item 6: the strength meter's endpoint runs zxcvbn for anyone, so it takes a
    /// budget per address: 300 questions in 5 minutes (a person typing asks once a pause), then 429
    /// with `Retry-After`, while another address is still answered.
    @Test func thePasswordStrengthMeterTakesAPerAddressBudget() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let question: [String: Any] = ["password": "correct horse battery staple", "email": "ada@example.com"]
        // 300 questions, 30 at a time (an address holds at most 64 connections).
        for _ in 0..<10 {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<30 {
                    group.addTask {
                        try await gatehouse.postJSON(
                            "/auth/password-strength", ["password": "correct horse battery staple"], anonKey: false,
                            from: "127.0.11.2"
                        ).status
                    }
                }
                for try await status in group { #expect(status == 200) }
            }
        }
        let held = try await gatehouse.postJSON("/auth/password-strength", question, anonKey: false, from: "127.0.11.2")
        #expect(held.status == 429 && Int(held.header("Retry-After") ?? "") ?? 0 > 0, "\(held.status) \(held.text)")
        let elsewhere = try await gatehouse.postJSON("/auth/password-strength", question, anonKey: false, from: "127.0.11.3")
        #expect(elsewhere.status == 200 && elsewhere.json["acceptable"] as? Bool == true, "\(elsewhere.text)")
        await gatehouse.stop()
    }
}
