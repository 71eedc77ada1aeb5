import AuthCore
import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 46, the Rownd plugin's `guest` route: an anonymous account with a session, which a later
/// sign-up made with that session upgrades in place (same id, its `data` and `meta` kept), as the
/// plugin links the new login method to the guest's user — and never onto, or from, an account
/// that already exists.
@Suite(.stopsWhatItStarts) struct RowndGuestTests {
    static let password = SuperTokensFDIAccountTests.password
    static let guest = "/auth/plugin/rownd/guest"
    static let user = "/auth/plugin/rownd/user"

    /// A new guest and its account's id (from the front-token).
    static func guest(_ gatehouse: TestGatehouse, from source: String? = nil) async throws -> (FDIScript, String) {
        let app = FDIScript(gatehouse, from: source)
        let made = try await app.call("POST", guest, [:])
        #expect(made.status == 200 && made.json["status"] as? String == "OK", "\(made.json)")
        let id = try #require(app.front["uid"] as? String, "a session came with the guest")
        return (app, id)
    }

    /// The access token's claims, from the newest front-token.
    static func claims(_ app: FDIScript) -> [String: Any] { app.front["up"] as? [String: Any] ?? [:] }

    @Test func aGuestHasASessionThatRefreshesAndSaysItIsAGuest() async throws {
        let gatehouse = try await TestGatehouse()
        let app = FDIScript(gatehouse)
        let made = try await app.call("POST", Self.guest, [:])
        #expect(made.json["status"] as? String == "OK" && made.json["createdNewRecipeUser"] as? Bool == true, "\(made.json)")
        let id = try #require(app.front["uid"] as? String)
        #expect(Self.claims(app)["auth_level"] as? String == "guest")
        #expect((Self.claims(app)["is_anonymous"] as? [String: Any])?["v"] as? Bool == true)
        #expect(Self.claims(app)["anonymous_id"] as? String == "anon_" + id)

        let user = try await app.call("GET", Self.user)
        #expect(user.json["auth_level"] as? String == "guest", "\(user.json)")
        let data = try #require(user.json["data"] as? [String: Any])
        #expect(data["user_id"] as? String == id && data["anonymous_id"] as? String == "anon_" + id)
        let refreshed = try await app.refresh()
        #expect(refreshed.status == 200 && Self.claims(app)["auth_level"] as? String == "guest", "\(refreshed.json)")
        #expect(try await app.call("GET", Self.user).status == 200, "the refreshed token opens the account")

        // Nobody is mailed: not at its making, nor when someone asks a reset for its placeholder.
        let address = try #require(data["email"] as? String)
        #expect(address.hasPrefix("guest_") && address.hasSuffix("@anonymous.local"), "\(address)")
        let reset = try await FDIScript(gatehouse).call(
            "POST", "/auth/user/password/reset/token", ["formFields": [["id": "email", "value": address]]],
            rid: "emailpassword")
        #expect(reset.json["status"] as? String == "OK")
        #expect(try await gatehouse.mails(to: address).isEmpty)
        await gatehouse.stop()
    }

    @Test func aGuestsSignUpUpgradesTheSameAccountKeepingItsDataAndMeta() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (app, id) = try await Self.guest(gatehouse)
        _ = try await app.call("PUT", Self.user, ["data": ["first_name": "Ada"]])
        _ = try await app.call("PUT", Self.user + "/meta", ["meta": ["cart": 3]])
        let guestRefresh = try #require(app.refreshToken)

        let signUp = try await app.emailPassword("signup", "ada@example.com", Self.password)
        #expect(signUp.json["status"] as? String == "OK", "\(signUp.json)")
        #expect((signUp.json["user"] as? [String: Any])?["id"] as? String == id, "the guest's own account, upgraded")
        #expect(Self.claims(app)["auth_level"] as? String == "verified")
        #expect((Self.claims(app)["is_anonymous"] as? [String: Any])?["v"] as? Bool == false)
        let user = try await app.call("GET", Self.user)
        let data = try #require(user.json["data"] as? [String: Any], "\(user.json)")
        #expect(data["email"] as? String == "ada@example.com" && data["first_name"] as? String == "Ada")
        #expect(data["anonymous_id"] == nil && user.json["auth_level"] as? String == "verified")
        #expect((user.json["meta"] as? [String: Any])?["cart"] as? Int == 3)

        // The guest's own session ended with it; the account signs in by password from now on.
        let old = FDIScript(gatehouse)
        old.refreshToken = guestRefresh
        #expect(try await old.refresh().status == 401)
        let again = FDIScript(gatehouse)
        let signIn = try await again.emailPassword("signin", "ada@example.com", Self.password)
        #expect((signIn.json["user"] as? [String: Any])?["id"] as? String == id, "\(signIn.json)")
        #expect(try await gatehouse.database.isGuest(UserID(id)) == false)
        await gatehouse.stop()
    }

    /// Account pre-hijacking through a guest: a guest's sign-up naming an address that has an
    /// account is refused as any sign-up is — the guest does not take the account (its password is
    /// not set there), and the account does not take the guest's data.
    @Test func aGuestCannotTakeAnExistingAccount() async throws {
        let gatehouse = try await TestGatehouse()
        let victim = FDIScript(gatehouse)
        let made = try await victim.emailPassword("signup", "victim@example.com", Self.password)
        let victimID = try #require((made.json["user"] as? [String: Any])?["id"] as? String, "\(made.json)")
        let (mallory, guestID) = try await Self.guest(gatehouse)
        _ = try await mallory.call("PUT", Self.user, ["data": ["first_name": "Mallory"]])

        let taken = try await mallory.emailPassword("signup", "VICTIM@example.com", "mallory-password-1")
        #expect(taken.json["status"] as? String == "FIELD_ERROR", "\(taken.json)")
        #expect(Self.claims(mallory)["auth_level"] as? String == "guest", "still the guest's session")
        let hijack = try await FDIScript(gatehouse).emailPassword("signin", "victim@example.com", "mallory-password-1")
        #expect(hijack.json["status"] as? String == "WRONG_CREDENTIALS_ERROR", "\(hijack.json)")
        let owner = try await FDIScript(gatehouse).emailPassword("signin", "victim@example.com", Self.password)
        #expect((owner.json["user"] as? [String: Any])?["id"] as? String == victimID)
        let victimData = try await victim.call("GET", Self.user).json["data"] as? [String: Any]
        #expect(victimData?["first_name"] as? String == "", "the guest's data stays the guest's")
        #expect(try await gatehouse.database.isGuest(UserID(guestID)))
        await gatehouse.stop()
    }

    /// Only a guest is upgraded: a sign-up made with a real account's session makes an account of
    /// its own, and the signed-in account keeps its address and password.
    @Test func aSignedInAccountsSessionIsNeverUpgraded() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let app = FDIScript(gatehouse)
        let made = try await app.emailPassword("signup", "mallory@example.com", Self.password)
        let malloryID = try #require((made.json["user"] as? [String: Any])?["id"] as? String)
        let other = try await app.emailPassword("signup", "victim@example.com", "another-password-2")
        let otherID = (other.json["user"] as? [String: Any])?["id"] as? String
        #expect(otherID != nil && otherID != malloryID, "\(other.json)")
        let mallory = try await FDIScript(gatehouse).emailPassword("signin", "mallory@example.com", Self.password)
        #expect((mallory.json["user"] as? [String: Any])?["id"] as? String == malloryID, "\(mallory.json)")
        await gatehouse.stop()
    }

    /// A guest who signs in to an account they already have is signed in to it: the guest stays a
    /// guest of its own, its data not carried into the account.
    @Test func aGuestsSignInGoesToTheExistingAccountAlone() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let owner = FDIScript(gatehouse)
        let made = try await owner.emailPassword("signup", "bo@example.com", Self.password)
        let ownerID = try #require((made.json["user"] as? [String: Any])?["id"] as? String)
        let (app, guestID) = try await Self.guest(gatehouse)
        _ = try await app.call("PUT", Self.user, ["data": ["first_name": "Guest"]])
        let signIn = try await app.emailPassword("signin", "bo@example.com", Self.password)
        #expect((signIn.json["user"] as? [String: Any])?["id"] as? String == ownerID, "\(signIn.json)")
        let data = try await app.call("GET", Self.user).json["data"] as? [String: Any]
        #expect(data?["first_name"] as? String == "" && data?["user_id"] as? String == ownerID)
        #expect(try await gatehouse.database.isGuest(UserID(guestID)))
        await gatehouse.stop()
    }

    /// A mailed code spent with a guest's session, for an address with no account, upgrades the
    /// guest (proven at once); for an address that has one, it signs in to that account alone.
    @Test func aGuestsMailedCodeUpgradesItOrSignsInToTheAccountThatExists() async throws {
        let gatehouse = try await TestGatehouse()
        let (app, id) = try await Self.guest(gatehouse)
        _ = try await app.call("PUT", Self.user, ["data": ["first_name": "Cy"]])
        let device = try await SuperTokensFDIPasswordlessTests.startCode(app, "cy@example.com")
        let code = try await gatehouse.latestCode(for: "cy@example.com")
        let consumed = try await SuperTokensFDIPasswordlessTests.consume(app, device, code)
        #expect((consumed["user"] as? [String: Any])?["id"] as? String == id, "\(consumed)")
        let user = try await app.call("GET", Self.user)
        #expect(user.json["auth_level"] as? String == "verified", "\(user.json)")
        #expect((user.json["data"] as? [String: Any])?["first_name"] as? String == "Cy")
        #expect(try await gatehouse.database.isGuest(UserID(id)) == false)

        gatehouse.clock.advance(61)  // past the address's one-minute mail cool-down
        let (other, otherGuest) = try await Self.guest(gatehouse)
        _ = try await other.call("PUT", Self.user, ["data": ["first_name": "Mallory"]])
        let again = try await SuperTokensFDIPasswordlessTests.startCode(other, "cy@example.com")
        let signedIn = try await SuperTokensFDIPasswordlessTests.consume(
            other, again, try await gatehouse.latestCode(for: "cy@example.com"))
        #expect((signedIn["user"] as? [String: Any])?["id"] as? String == id, "the address's own account")
        let data = try await other.call("GET", Self.user).json["data"] as? [String: Any]
        #expect(data?["first_name"] as? String == "Cy", "the guest's data is not carried in")
        #expect(try await gatehouse.database.isGuest(UserID(otherGuest)))
        await gatehouse.stop()
    }

    /// Millions of guests from one machine are an attack: guests come out of the caller's sign-up
    /// budget (50 an hour), the 51st is refused with nothing made, and other callers are untouched.
    @Test func theFiftyFirstGuestFromOneAddressIsRefused() async throws {
        let gatehouse = try await TestGatehouse()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask { try await FDIScript(gatehouse, from: "127.0.0.7").call("POST", Self.guest, [:]).status }
            }
            for try await status in group { #expect(status == 200) }
        }
        let refused = FDIScript(gatehouse, from: "127.0.0.7")
        let answer = try await refused.call("POST", Self.guest, [:])
        #expect(answer.status == 429 && refused.accessToken == nil, "\(answer.status) \(answer.json)")
        #expect(try await gatehouse.database.guestCount() == 50)
        #expect(try await FDIScript(gatehouse, from: "127.0.0.8").call("POST", Self.guest, [:]).status == 200)
        await gatehouse.stop()
    }

    /// Guests in the console: a "Guest" badge, a filter, counted with the rest, and deleted in bulk
    /// through that filter ("Select all matching", then Delete).
    @Test func theConsoleShowsFiltersCountsAndDeletesGuests() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (_, first) = try await Self.guest(gatehouse)
        let (_, second) = try await Self.guest(gatehouse)
        _ = try await FDIScript(gatehouse).emailPassword("signup", "real@example.com", Self.password)
        let staff = try await gatehouse.staffBrowser()
        let list = try await staff.get("/_/users")
        #expect(list.text.contains("<span data-guest-total>2 of them guests</span>"), "\(list.text.prefix(2000))")
        #expect(list.text.components(separatedBy: #"data-kind="guest""#).count - 1 == 2)
        let guests = try await staff.get("/_/users?guest=yes")
        #expect(guests.text.contains(first) && guests.text.contains(second) && !guests.text.contains("real@example.com"))
        let page = try await staff.get("/_/users/" + first)
        #expect(page.text.contains(#"data-kind="guest""#) && !page.text.contains("Unverified</span>"))
        let others = try await staff.get("/_/users?guest=no")
        #expect(others.text.contains("real@example.com") && !others.text.contains(first))

        let form = [("action", "delete"), ("return", "/_/users?guest=yes"), ("matching", "yes")]
        let review = try await staff.post("/_/users/bulk", form)
        #expect(review.text.contains("Delete 2 users?"), "\(review.text.prefix(2000))")
        let confirm = form + [("confirm", "yes"), ("typed", "delete 2 users"), ("id", first), ("id", second)]
        let done = try await staff.post("/_/users/bulk", confirm)
        #expect(done.status == 303, "\(done.status) \(done.text.prefix(300))")
        #expect(try await gatehouse.database.guestCount() == 0)
        #expect(try await gatehouse.database.user(email: "real@example.com") != nil)
        await gatehouse.stop()
    }
}
