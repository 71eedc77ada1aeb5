import Foundation
import HTTPTestClient
import TestScope
import Testing

/// A console passkey signs in alone and an authenticator app's recovery codes do too, so a console
/// left open (or a taken `gh_console` cookie) must not add either: past `RecentSignIn.window` the
/// security page asks for the password in place (`StaffRecentSignIn`), which renews the session
/// without signing out — the superuser's impersonations go on.
@Suite(.stopsWhatItStarts) struct ConsoleRecentSignInTests {
    @Test func addingAConsoleWayInPastTheWindowNeedsThePasswordAgain() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let staff = try await gatehouse.staffBrowser()
        let localhost = [("Host", "localhost:\(gatehouse.port)")]
        let fresh = try await staff.get("/_/security")
        #expect(fresh.text.contains("data-totp-begin") && !fresh.text.contains("data-confirm-first"))

        // An impersonation started now must outlive the confirmation.
        let person = gatehouse.browser()
        _ = try await person.get("/auth/sign-up")
        _ = try await person.post(
            "/auth/sign-up", [("name", "Pat"), ("email", "pat@example.com"), ("password", "quiet otter meadow 7")])
        let patID = try #require(try await gatehouse.database.user(email: "pat@example.com")?.id)
        let started = try await staff.post("/_/users/\(patID)/impersonate", [("duration", "60"), ("mode", "browser")])
        #expect(started.header("Location") == "/account")

        gatehouse.clock.advance(16 * 60)
        let stale = try await staff.get("/_/security")
        #expect(stale.status == 200 && stale.text.contains("data-confirm-first"))
        #expect(!stale.text.contains("data-totp-begin") && !stale.text.contains("data-passkey-create"), "no add offered")

        // Each add is refused by its owner, whatever the page showed.
        let begin = try await staff.post("/_/security/totp/begin", [])
        #expect(begin.status == 403 && begin.text.contains("To set up an authenticator app, confirm your password first"))
        #expect(!begin.text.contains("<svg class=\"qr"), "no key shown")
        #expect(try await staff.post("/_/security/totp/confirm", [("code", "123456")]).status == 403)
        let options = try await staff.post("/_/security/passkeys/options", [], headers: localhost)
        #expect(options.status == 403 && options.text.contains("fresh_sign_in_required"), "\(options.status) \(options.text)")
        let register = try await staff.post("/_/security/passkeys", [("credential", "{}")], headers: localhost)
        #expect(register.status == 403 && register.text.contains("confirm your password first"))

        // A wrong password is said so and changes nothing.
        let wrong = try await staff.post("/_/security/confirm", [("password", "not-the-password")])
        #expect(wrong.status == 422 && wrong.text.contains("That password isn") && wrong.text.contains("data-confirm-first"))

        let oldToken = try #require(staff.cookie("gh_console"))
        let confirmed = try await staff.post("/_/security/confirm", [("password", "staff-password-1")])
        #expect(confirmed.status == 303 && confirmed.header("Location") == "/_/security?notice=console-confirmed")
        let newToken = try #require(staff.cookie("gh_console"))
        #expect(newToken != oldToken, "the session is renewed under a new token")
        let old = try await HTTPTestClient(port: gatehouse.port).request(
            "GET", "/_/users", headers: [("Cookie", "gh_console=\(oldToken)")])
        #expect(old.status == 303, "the old token no longer opens the console")

        let open = try await staff.get("/_/security?notice=console-confirmed")
        #expect(open.text.contains("Password confirmed") && open.text.contains("data-totp-begin"))
        #expect(try await staff.post("/_/security/totp/begin", []).status == 200)
        #expect(try await staff.post("/_/security/passkeys/options", [], headers: localhost).status == 200)
        let account = try await staff.get("/account", follow: false)
        #expect(account.status == 200 && account.text.contains("Viewing as"), "the impersonation goes on")

        let types = try await gatehouse.database.auditEvents(subject: nil, limit: 200).map(\.type)
        #expect(types.contains("console.reauthentication_failed") && types.contains("console.reauthenticated"))
        #expect(!types.contains("console.sign_out") && !types.contains("impersonation.stopped"))
        await gatehouse.stop()
    }

    @Test func aRenewedSessionEndsWhenTheFirstWould() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let staff = try await gatehouse.staffBrowser()
        gatehouse.clock.advance(20 * 60)
        _ = try await staff.get("/_/security")
        #expect(try await staff.post("/_/security/confirm", [("password", "staff-password-1")]).status == 303)
        // Kept in use (within the idle timeout) up to the first session's 12 hours, then signed out.
        var elapsed: TimeInterval = 20 * 60
        while elapsed + 25 * 60 < 12 * 3600 {
            gatehouse.clock.advance(25 * 60)
            elapsed += 25 * 60
            #expect(try await staff.get("/_/users", follow: false).status == 200, "signed out early, at \(elapsed / 60) min")
        }
        gatehouse.clock.advance(12 * 3600 - elapsed + 1)
        #expect(try await staff.get("/_/users", follow: false).status == 303)
        await gatehouse.stop()
    }
}
