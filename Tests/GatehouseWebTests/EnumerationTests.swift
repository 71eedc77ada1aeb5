import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 9, item 6: the account pages answer every kind of address alike — new or taken, pending or
/// verified or unknown — in what they say and in when they say it.
@Suite(.stopsWhatItStarts) struct EnumerationTests {
    private func signUp(_ gatehouse: TestGatehouse, _ email: String) async throws -> TestResponse {
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/sign-up")
        return try await browser.post("/auth/sign-up", [("email", email), ("password", "quiet-otter-123"), ("name", "")])
    }

    /// The text of the form's error messages, without the CSRF token and echoed fields around them.
    private func fieldErrors(_ page: String) -> [String] {
        page.components(separatedBy: #"class="field__error""#).dropFirst().map { rest in
            let message = rest.components(separatedBy: "</span>").dropFirst().first ?? rest
            return String(message.prefix { $0 != "<" })
        }
    }

    @Test func signingUpWithATakenAddressLooksLikeANewOneAndTellsTheOwner() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let fresh = try await signUp(gatehouse, "first@example.com")
        let taken = try await signUp(gatehouse, "first@example.com")
        let other = try await signUp(gatehouse, "second@example.com")
        #expect(taken.status == fresh.status && taken.status == 303)
        #expect(taken.header("Location") == "/auth/verify?email=first%40example.com")
        #expect(other.header("Location") == "/auth/verify?email=second%40example.com")
        #expect(!taken.text.contains("already exists"))

        let mails = try await gatehouse.mails(to: "first@example.com")
        #expect(mails.count == 2, "the code, then the notice")
        #expect((mails.first?["subject"] as? String) == "Someone tried to sign up with your Gatehouse address")
        #expect((mails.first?["text"] as? String)?.contains("/auth/sign-in") == true)
        #expect(try await gatehouse.database.user(email: "first@example.com") != nil)
        await gatehouse.stop()
    }

    @Test func theCodeFormAnswersEveryAddressTheSame() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        _ = try await signUp(gatehouse, "pending@example.com")
        _ = try await signUp(gatehouse, "killed@example.com")
        let browser = gatehouse.browser()
        _ = try await browser.get("/auth/verify?email=x")
        let killedCode = try await gatehouse.latestCode(for: "killed@example.com")
        for _ in 0..<5 {
            _ = try await browser.post(
                "/auth/verify", [("email", "killed@example.com"), ("code", killedCode == "000000" ? "111111" : "000000")])
        }
        var answers: [String: (Int, [String])] = [:]
        for email in ["nobody@example.com", "pending@example.com", "killed@example.com"] {
            let response = try await browser.post("/auth/verify", [("email", email), ("code", "123456")])
            answers[email] = (response.status, fieldErrors(response.text))
        }
        let killedRight = try await browser.post("/auth/verify", [("email", "killed@example.com"), ("code", killedCode)])
        answers["killed, right code"] = (killedRight.status, fieldErrors(killedRight.text))
        let expected = answers["nobody@example.com"]
        #expect(
            expected?.0 == 422
                && expected?.1 == ["That code is not right or is no longer valid. Check the newest email, or ask for a new code."]
        )
        for (email, answer) in answers {
            #expect(answer.0 == expected?.0 && answer.1 == expected?.1, "\(email) answered \(answer)")
        }
        await gatehouse.stop()
    }

    @Test func resendTakesTheSameFloorForEveryAddress() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        _ = try await signUp(gatehouse, "unverified@example.com")
        gatehouse.clock.advance(61)  // past the resend cool-down the sign-up started
        var locations: [String] = []
        for email in ["unverified@example.com", "unknown@example.com"] {
            let browser = gatehouse.browser()
            _ = try await browser.get("/auth/resend-verification")
            let started = ContinuousClock.now
            let response = try await browser.post("/auth/resend-verification", [("email", email)])
            // Both wait out the same floor, so the time of sending is not what an observer sees.
            #expect(ContinuousClock.now - started >= .milliseconds(150), "\(email) answered before the floor")
            #expect(response.status == 303)
            locations.append(
                response.header("Location")?.replacingOccurrences(of: email.replacingOccurrences(of: "@", with: "%40"), with: "E")
                    ?? "")
        }
        #expect(locations[0] == locations[1])
        await gatehouse.stop()
    }
}
