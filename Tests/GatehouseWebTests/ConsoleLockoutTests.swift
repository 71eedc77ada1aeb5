import AuthCore
import Foundation
import HTTPTestClient
import TestScope
import Testing
import TwoFactor

/// Issue 49, items 1 and 2: support staff see why a person cannot sign in. The user page lists
/// each running back-off (address, tries, until when) with Unlock (audited), the users list
/// filters the locked accounts, and every refusal of a known account is on its Activity with the
/// way in and the reason; an unknown address's refusals stay address-only.
@Suite(.stopsWhatItStarts) struct ConsoleLockoutTests {
    static let email = "locked-out@example.com"
    static let password = "correct horse battery"

    @Test func staffSeeTheBackOffLiftItAndFindTheAccountByIt() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        gatehouse.clock.freeze()
        _ = try await gatehouse.signedUpBrowser(Self.email, password: Self.password)
        _ = try await gatehouse.signedUpBrowser("free@example.com", password: Self.password)
        let person = gatehouse.browser(from: "127.0.0.7")
        _ = try await person.get("/auth/sign-in")
        for attempt in 0..<6 {
            _ = try await person.post("/auth/sign-in", [("email", Self.email), ("password", "wrong-\(attempt)")])
        }
        for attempt in 0..<2 {
            _ = try await gatehouse.script.call(
                "POST", "/api/collections/users/auth-with-password", ["identity": "nobody@example.com", "password": "x\(attempt)"]
            )
        }

        let staff = try await gatehouse.staffBrowser()
        let list = try await staff.get("/_/users?locked=yes")
        #expect(list.text.contains(Self.email) && !list.text.contains("free@example.com"), "only the locked account is listed")
        let userURL = try #require(
            list.text.range(of: #"/_/users/[A-Za-z0-9]+"#, options: .regularExpression).map { String(list.text[$0]) })
        let page = try await staff.get(userURL)
        #expect(page.text.contains("<code>127.0.0.7</code></span> · 6 failed tries · until"), "the back-off is shown")
        #expect(page.text.contains("Unlock sign-in from 127.0.0.7"))
        // Item 2: the refusals are on the account's Activity, with the way in and the reason.
        // A refusal of a known account was its password's, and nobody but the person tried: the
        // page says so, and names no actor ("by system" read as if Gatehouse had done it).
        #expect(page.text.contains("<p class=\"cx-event__reason\">account locked after too many tries</p>"))
        #expect(page.text.contains("<p class=\"cx-event__reason\">wrong password</p>"))
        #expect(!page.text.contains("unknown address") && !page.text.contains(">system</span>"))
        let audit = try await staff.get("/_/audit?type=sign_in.failed")
        #expect(audit.text.contains("nobody@example.com"), "the unknown address's refusals are kept")
        #expect(audit.text.contains("wrong password or unknown address"), "an unknown address's refusal says both")
        let token = try await gatehouse.adminToken()
        let api = try await gatehouse.script.call("GET", "/_/api/audit?type=sign_in.failed&limit=50", bearer: token)
        let events = try #require(try JSONSerialization.jsonObject(with: Data(api.body)) as? [[String: Any]], "\(api.text)")
        #expect(events.count == 8, "six refusals of the account, two of the unknown address")
        for event in events {
            let email = (event["data"] as? [String: Any])?["email"] as? String
            #expect((event["subject"] as? String != nil) == (email == Self.email), "\(event)")
        }

        let unlocked = try await staff.post(userURL + "/unlock", [("source", "127.0.0.7")])
        #expect(unlocked.status == 303, "\(unlocked.status)")
        let after = try await staff.get(userURL)
        #expect(after.text.contains("No address is waiting out wrong passwords for this account now."))
        #expect(after.text.contains("Sign-in back-off lifted by staff"), "the unlock is on the Activity")
        let signedIn = try await person.post("/auth/sign-in", [("email", Self.email), ("password", Self.password)])
        #expect(signedIn.status == 303, "the person is let in at once")
        #expect(!(try await staff.get("/_/users?locked=yes")).text.contains(Self.email))
        await gatehouse.stop()
    }

    /// Item 9: an address change the person asked for and has not confirmed shows on the user page.
    @Test func staffSeeAnEmailChangeWaitingForItsConfirmation() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let person = try await gatehouse.signedUpBrowser(Self.email, password: Self.password)
        _ = try await person.get("/account/email")
        let asked = try await person.post("/account/email", [("email", "moving@example.com"), ("password", Self.password)])
        #expect(asked.status == 303, "\(asked.status)")
        let staff = try await gatehouse.staffBrowser()
        let list = try await staff.get("/_/users?q=locked-out")
        let userURL = try #require(
            list.text.range(of: #"/_/users/[A-Za-z0-9]+"#, options: .regularExpression).map { String(list.text[$0]) })
        let page = try await staff.get(userURL)
        #expect(page.text.contains("The user asked to move to <strong class=\"break\">moving@example.com</strong>"))
        await gatehouse.stop()
    }

    /// Item 9: a linked account shows the address its provider gave when it was linked.
    @Test func staffSeeTheProvidersAddressOfALinkedAccount() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        _ = try await gatehouse.signedUpBrowser(Self.email, password: Self.password)
        let user = try #require(try await gatehouse.database.user(email: Self.email))
        _ = try await gatehouse.database.linkExternal(
            ExternalIdentity(provider: "acme-directory", subject: "acme-4821", email: "pat.work@acme.example"),
            to: user.id, at: Date())
        let staff = try await gatehouse.staffBrowser()
        let page = try await staff.get("/_/users/\(user.id.rawValue)")
        #expect(page.text.contains("<span class=\"provider__email break\" data-provider-email>pat.work@acme.example</span>"))
        #expect(page.text.contains("<code>acme-4821</code>"))
        await gatehouse.stop()
    }

    /// Item 6: on a phone the user page is one long column, and its strip of section links reaches
    /// every section on it (two-step sign-in and passkeys were left out).
    @Test func theSectionLinksReachEverySectionOfTheUserPage() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        _ = try await gatehouse.signedUpBrowser(Self.email, password: Self.password)
        let user = try #require(try await gatehouse.database.user(email: Self.email))
        let staff = try await gatehouse.staffBrowser()
        let page = try await staff.get("/_/users/\(user.id.rawValue)").text
        func all(_ pattern: String, in text: Substring) throws -> [String] {
            text.matches(of: try Regex(pattern)).compactMap { $0.output[1].substring.map(String.init) }
        }
        let nav = try #require(page.range(of: #"<nav class="cx-jump"[\s\S]*?</nav>"#, options: .regularExpression))
        let sections = try all(#"<section class="cx-card[^"]*" id="(sec-[a-z]+)""#, in: page[...])
        #expect(sections.count == 9, "\(sections)")
        #expect(try all(##"href="#(sec-[a-z]+)""##, in: page[nav]) == sections)
        await gatehouse.stop()
    }

    /// Item 2: a refused second step is recorded against the account whose sign-in it continues.
    @Test func aRefusedSecondStepIsTheAccounts() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (_, secret, _) = try await TOTPPageTests.enrolled(gatehouse, email: Self.email)
        let browser = try await TOTPPageTests.passwordStep(gatehouse, email: Self.email)
        let right = try TOTP.code(secret: secret, at: gatehouse.clock.now)
        let refused = try await browser.post("/auth/mfa", [("code", right == "000000" ? "111111" : "000000")])
        #expect(refused.status == 422)
        let events = try await gatehouse.database.auditEvents(subject: nil, limit: 100)
        let owner = try #require(events.first { $0.type == "totp.enabled" }?.subject)
        let failed = try #require(events.first { $0.type == "mfa.failed" })
        #expect(failed.subject == owner, "the refusal names the account: \(failed)")
        await gatehouse.stop()
    }
}
