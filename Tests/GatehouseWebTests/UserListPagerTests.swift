import Testing

@testable import GatehouseWeb

/// What the users list says about where it is: the range, the total or its floor, and the page links.
@Suite struct UserListPagerTests {
    private func numbers(_ pager: UserListPager) -> [String] {
        pager.items.map { $0.number.map { $0 == pager.page ? "[\($0)]" : String($0) } ?? "…" }
    }

    @Test func anExactTotalLinksFirstNeighboursAndLast() {
        let pager = UserListPager(page: 7, perPage: 50, total: 102_306, totalIsLowerBound: false, shown: 50)
        #expect(pager.rangeText == "301–350 of 102,306")
        #expect(numbers(pager) == ["1", "…", "5", "6", "[7]", "8", "9", "…", "2047"])
        #expect(pager.hasPrevious && pager.hasNext)
        let last = UserListPager(page: 2047, perPage: 50, total: 102_306, totalIsLowerBound: false, shown: 6)
        #expect(last.rangeText == "102,301–102,306 of 102,306")
        #expect(!last.hasNext)
    }

    @Test func aFloorIsLabelledAsOne() {
        let first = UserListPager(page: 1, perPage: 50, total: 1000, totalIsLowerBound: true, shown: 50)
        #expect(first.rangeText == "1–50 of more than 1,000")
        #expect(first.lastPage == nil && first.hasNext)
        let deep = UserListPager(page: 50, perPage: 50, total: 1000, totalIsLowerBound: true, shown: 50)
        #expect(deep.rangeText == "2,451–2,500 of at least 2,500", "never fewer than the page shows")
        let end = UserListPager(page: 60, perPage: 50, total: 1000, totalIsLowerBound: true, shown: 20)
        #expect(end.rangeText == "2,951–2,970 of 2,970", "a short page settles the count")
        #expect(!end.hasNext)
    }

    @Test func anEmptyPageSaysSo() {
        let pager = UserListPager(page: 9, perPage: 50, total: 120, totalIsLowerBound: false, shown: 0)
        #expect(pager.rangeText == "No users on page 9: the list has 120 users", "a count of users, not of pages")
        #expect(pager.hasPrevious && !pager.hasNext)
    }
}
