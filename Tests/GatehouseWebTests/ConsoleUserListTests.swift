import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 25, item 4, over HTTP: the console's users list as support staff page, sort and act on it
/// over 430 seeded users — numbered pages with a total, a sort per column header kept in the URL,
/// the exact address first, and a bulk disable that asks first and audits each user. (The layout
/// and the page's script stay in Tests/e2e/test_console_users_list.py.)
@Suite(.stopsWhatItStarts) struct ConsoleUserListTests {
    static let count = 430

    /// The addresses listed, in order.
    private func emails(_ page: TestResponse) -> [String] {
        matches(#"class="cx-usercell__email" href="[^"]*" title="([^"]+)""#, in: page.text)
    }

    /// Every first capture of `pattern` in `text`, with `&amp;` read as `&`.
    private func matches(_ pattern: String, in text: String) -> [String] {
        let expression = try? NSRegularExpression(pattern: pattern)
        let whole = NSRange(text.startIndex..., in: text)
        return (expression?.matches(in: text, range: whole) ?? []).compactMap { match in
            Range(match.range(at: 1), in: text).map { text[$0].replacingOccurrences(of: "&amp;", with: "&") }
        }
    }

    /// Where the header of `column` links to, and its `aria-sort` when the list is sorted by it.
    private func header(_ column: String, in page: TestResponse) -> (url: String, sort: String?) {
        let url = matches(#"data-column="\#(column)" href="([^"]+)""#, in: page.text).first ?? ""
        let sort = matches(#"aria-sort="([a-z]+)">\s*<a class="cx-sort" data-column="\#(column)""#, in: page.text).first
        return (url, sort)
    }

    private func link(_ rel: String, in page: TestResponse) -> String {
        matches(#"href="([^"]+)" rel="\#(rel)""#, in: page.text).first ?? ""
    }

    @Test func pagesSortsPutTheExactAddressFirstAndBulkDisableAsksFirst() async throws {
        let gatehouse = try await TestGatehouse()
        let token = try await gatehouse.adminToken()
        let seeded = try await gatehouse.script.call(
            "POST", "/_/api/users/seed",
            ["count": Self.count, "pattern": "test+{n}@example.com", "password": "shared-password-1", "verified": true],
            bearer: token)
        #expect(seeded.status == 201, "\(seeded.text)")
        let staff = try await gatehouse.staffBrowser()

        // Numbered pages and the total; the page is kept in the URL.
        let first = try await staff.get("/_/users")
        #expect(first.text.contains("1–50 of 430"))
        let pages = matches(#"aria-label="Page [0-9]+">([0-9]+)</a>"#, in: first.text)
        #expect(Array(pages.prefix(3)) == ["1", "2", "3"] && pages.last == "9", "\(pages)")
        #expect(link("next", in: first) == "/_/users?page=2")
        let second = try await staff.get(link("next", in: first))
        #expect(second.text.contains("51–100 of 430"))
        #expect(matches(#"aria-current="page" aria-label="Page ([0-9]+)""#, in: second.text) == ["2"])
        #expect(link("prev", in: second) == "/_/users")

        // The Email header sorts, then sorts the other way; both kept in the URL, and a new sort starts at page 1.
        #expect(header("email", in: first).url == "/_/users?sort=email")
        let byEmail = try await staff.get(header("email", in: first).url)
        #expect(header("email", in: byEmail).sort == "ascending")
        let sorted = emails(byEmail)
        #expect(sorted.count == 50 && sorted == sorted.sorted())
        #expect(link("next", in: byEmail) == "/_/users?sort=email&page=2")
        let sortedOn = try await staff.get(link("next", in: byEmail))
        #expect(sortedOn.text.contains("51–100 of 430"))
        #expect((emails(sortedOn).first ?? "") > (sorted.last ?? "~"), "page 2 continues the sorted order")
        #expect(header("email", in: sortedOn).url == "/_/users?sort=-email")
        let descending = try await staff.get(header("email", in: sortedOn).url)
        #expect(header("email", in: descending).sort == "descending")
        #expect(emails(descending) == emails(descending).sorted(by: >))
        #expect(header("created", in: descending).url == "/_/users", "newest first is the list's default")
        #expect(header("created", in: first).sort == "descending")
        #expect(header("lastSignIn", in: first).url == "/_/users?sort=-last-sign-in")

        // The exact address comes before the ten it is a prefix of.
        let found = try await staff.get("/_/users?q=test%2B42")
        let listed = emails(found)
        #expect(listed.first == "test+42@example.com" && listed.count == 11, "\(listed)")

        // A bulk disable of three: the list's post asks first and changes nothing; the confirmation acts.
        let ids = matches(#"name="id" value="([^"]+)" form="bulk""#, in: found.text)
        let chosen = Array(zip(listed, ids).dropFirst().prefix(3))
        let form = [("action", "disable"), ("return", "/_/users?q=test%2B42")] + chosen.map { ("id", $0.1) }
        let review = try await staff.post("/_/users/bulk", form)
        #expect(review.text.contains("Disable 3 users?"))
        #expect(matches(#"<li><span class="break">([^<]+)</span>"#, in: review.text) == chosen.map(\.0).sorted())
        #expect(try await disabledEvents(gatehouse, token).isEmpty, "nothing happens before the confirmation")
        let done = try await staff.post("/_/users/bulk", form + [("confirm", "yes")])
        #expect(done.status == 303 && done.header("Location") == "/_/users?q=test%2B42&bulk=disable&changed=3")
        let after = try await staff.get(done.header("Location") ?? "")
        #expect(after.text.contains("Disabled 3 users."))
        let disabled = matches(#"<tr class="is-disabled">\s*<td[^>]*><input[^>]*aria-label="Select ([^"]+)""#, in: after.text)
        #expect(Set(disabled) == Set(chosen.map(\.0)), "\(disabled)")
        let events = try await disabledEvents(gatehouse, token)
        #expect(events.count == 3 && events.allSatisfy { ($0["data"] as? [String: Any])?["via"] as? String == "console" })

        // The server asks again when the confirmation field is missing, whatever the page's script did.
        let again = try await staff.post(
            "/_/users/bulk", [("action", "enable"), ("return", "/_/users")] + chosen.map { ("id", $0.1) })
        #expect(again.text.contains("Enable 3 users?"))
        let enabled = try await gatehouse.script.call("GET", "/_/api/audit?type=admin.user.enabled", bearer: token)
        #expect(enabled.text == "[]")
        await gatehouse.stop()
    }

    /// Issue 49, item 9: "Select all 430 matching" takes every page of the filtered list.
    @Test func aBulkActTakesEveryUserTheFiltersMatch() async throws {
        let gatehouse = try await TestGatehouse()
        let token = try await gatehouse.adminToken()
        let seeded = try await gatehouse.script.call(
            "POST", "/_/api/users/seed",
            ["count": Self.count, "pattern": "test+{n}@example.com", "password": "shared-password-1"], bearer: token)
        #expect(seeded.status == 201, "\(seeded.text)")
        let staff = try await gatehouse.staffBrowser()
        #expect(try await staff.get("/_/users").text.contains("Select all 430 matching"))
        #expect(!(try await staff.get("/_/users?q=test%2B42")).text.contains("matching</button>"), "one page holds them all")

        let form = [("action", "tag"), ("tag", "everyone"), ("return", "/_/users"), ("matching", "yes")]
        let review = try await staff.post("/_/users/bulk", form)
        #expect(review.text.contains("Tag 430 users “everyone”?"))
        #expect(review.text.contains("… and 380 more"))
        let ids = matches(#"<input type="hidden" name="id" value="([^"]+)">"#, in: review.text)
        #expect(Set(ids).count == Self.count)
        let done = try await staff.post("/_/users/bulk", form + [("confirm", "yes")] + ids.map { ("id", $0) })
        #expect(done.header("Location") == "/_/users?bulk=tag&changed=430", "\(done.status) \(done.text.prefix(300))")
        #expect(try await staff.get("/_/users?tag=everyone").text.contains("1–50 of 430"))
        let tagged = try await gatehouse.script.call("GET", "/_/api/audit?type=admin.user.tagged&limit=500", bearer: token)
        #expect((try JSONSerialization.jsonObject(with: Data(tagged.body)) as? [Any])?.count == 430, "one audit row each")
        await gatehouse.stop()
    }

    private func disabledEvents(_ gatehouse: TestGatehouse, _ token: String) async throws -> [[String: Any]] {
        let answer = try await gatehouse.script.call("GET", "/_/api/audit?type=admin.user.disabled", bearer: token)
        return try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [[String: Any]], "\(answer.text)")
    }
}
