import Foundation
import HTTPTestClient
import TestScope
import Testing

@testable import GatehouseWeb

/// Pages are remembered by the whole of their context (`RenderedPages`, issue 13): two contexts
/// share a page only when everything in them is equal, and each serving carries its own CSRF token.
@Suite(.stopsWhatItStarts) struct RenderedPagesTests {
    /// Two people signed in at once, with the same name: each account page, rendered once and then
    /// served from memory, shows that person's own email and never the other's, and a visitor who
    /// is not signed in is shown neither.
    @Test func eachPersonIsServedTheirOwnRememberedPage() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let admin = try await gatehouse.adminToken()
        let emails = ["ann@example.com", "bob@example.com"]
        var browsers: [Browser] = []
        for email in emails {
            let created = try await HTTPTestClient(port: gatehouse.port).request(
                "POST", "/_/api/users", headers: [("Authorization", "Bearer \(admin)"), ("Content-Type", "application/json")],
                body: Array(#"{"email":"\#(email)","password":"quiet-otter-123","name":"Same Name","verified":true}"#.utf8))
            #expect(created.status == 201, "\(created.text)")
            let browser = gatehouse.browser()
            _ = try await browser.get("/auth/sign-in")
            #expect(try await browser.post("/auth/sign-in", [("email", email), ("password", "quiet-otter-123")]).status == 303)
            browsers.append(browser)
        }
        for _ in 0..<3 {
            for (mine, theirs) in [(0, 1), (1, 0)] {
                let page = try await browsers[mine].get("/account")
                #expect(page.status == 200)
                #expect(page.text.contains(emails[mine]))
                #expect(!page.text.contains(emails[theirs]), "one person was served another's account page")
                #expect(Browser.csrfToken(in: page.text) != nil)
            }
        }
        let stranger = gatehouse.browser()
        let signIn = try await stranger.get("/auth/sign-in")
        #expect(signIn.status == 200)
        #expect(emails.allSatisfy { !signIn.text.contains($0) })
        #expect(try await stranger.get("/account", follow: false).status == 303)
        await gatehouse.stop()
    }

    /// Values that render differently never share a key, however they line up when written out.
    @Test func contextsThatDifferNeverShareAKey() {
        let contexts: [[String: Any]] = [
            ["a": "1"], ["a": 1], ["a": true], ["a": false], ["a": 1.5], ["a": ["1"]], ["a": ["x": "1"]],
            ["a": ["x": "1"] as [String: Any]], ["a": [["x": "1"]]], ["ab": "c"], ["a": "bc"], ["a": "b", "c": "d"],
            ["a": "b1:c", "s": "d"], ["a": ["x": "1", "y": "2"]], ["a": ["x": "12"]], ["a": [] as [Any]],
            ["a": [String: Any]()], ["a": ""]
        ]
        let keys = contexts.map { context -> PageKey? in
            var key = PageKey("page")
            return key.write(context) ? key : nil
        }
        #expect(keys.allSatisfy { $0 != nil })
        #expect(Set(keys).count == keys.count - 1, "only the two spellings of [\"x\": \"1\"] may share a key")
        var other = PageKey("other")
        #expect(other.write(contexts[0]) && !keys.contains(other))
    }

    /// A value of a type the key cannot write (a date) means the page is rendered every time.
    @Test func aContextWithAnUnknownValueIsRenderedEveryTime() {
        let pages = RenderedPages()
        var renders = 0
        for _ in 0..<2 {
            let body = pages.page("page", ["when": Date(), "csrf": "token"]) { _ in
                renders += 1
                return "<p>page</p>"
            }
            #expect(String(decoding: body, as: UTF8.self) == "<p>page</p>")
        }
        #expect(renders == 2)
    }

    /// The same inputs render once; each serving puts its own token in every place the token goes.
    @Test func aRememberedPageCarriesEachServingsToken() {
        let pages = RenderedPages()
        var renders = 0
        let render: ([String: Any]) -> String = { context in
            renders += 1
            let token = context["csrf"] as? String ?? ""
            return "<form>\(token)</form><form>\(token)</form>é"
        }
        let first = pages.page("page", ["csrf": "one", "user": ["name": "Ann"]], render: render)
        let second = pages.page("page", ["csrf": "two", "user": ["name": "Ann"]], render: render)
        let other = pages.page("page", ["csrf": "two", "user": ["name": "Bob"]], render: render)
        #expect(String(decoding: first, as: UTF8.self) == "<form>one</form><form>one</form>é")
        #expect(String(decoding: second, as: UTF8.self) == "<form>two</form><form>two</form>é")
        #expect(String(decoding: other, as: UTF8.self) == "<form>two</form><form>two</form>é")
        #expect(renders == 2)
    }
}
