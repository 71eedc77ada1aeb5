import ServerSeam

/// The users list's place in its results: "1–50 of 102,306", Previous/Next and the page numbers
/// around the current one (the first and, when the total is exact, the last always shown).
struct UserListPager: Equatable {
    let page: Int
    let perPage: Int
    let total: Int
    /// `total` is a floor ("more than 1,000"): the last page is unknown.
    let totalIsLowerBound: Bool
    let shown: Int

    /// A page link, or a gap ("…") between page links when `number` is nil.
    struct Item: Equatable {
        var number: Int?
        var isCurrent = false
    }

    /// The rows up to the end of this page.
    private var end: Int { (page - 1) * perPage + shown }

    /// A floor that a short page settles: the list ends on it.
    private var isExact: Bool { !totalIsLowerBound || (shown > 0 && shown < perPage) }

    /// The last page, when the total is known.
    var lastPage: Int? {
        guard isExact else { return nil }
        return totalIsLowerBound ? page : max(1, (total + perPage - 1) / perPage)
    }

    var hasPrevious: Bool { page > 1 }

    var hasNext: Bool { lastPage.map { page < $0 } ?? (shown == perPage) }

    /// "1–50 of 102,306", "51–100 of more than 1,000", or what an empty page says: past the end,
    /// the list's size in users, so "page 9 of 120" never reads as 120 pages.
    var rangeText: String {
        let of = totalText
        guard shown > 0 else {
            guard page > 1 else { return "No users" }
            let users = total == 1 && !totalIsLowerBound ? "user" : "users"
            return "No users on page \(CountText.grouped(page)): the list has \(of) \(users)"
        }
        return "\(CountText.grouped((page - 1) * perPage + 1))–\(CountText.grouped(end)) of \(of)"
    }

    /// The total, a floor of it ("more than 1,000"), or past the counted floor the page itself
    /// ("at least 2,500").
    private var totalText: String {
        if !totalIsLowerBound { return CountText.grouped(total) }
        if isExact { return CountText.grouped(end) }
        return end > total ? "at least \(CountText.grouped(end))" : "more than \(CountText.grouped(total))"
    }

    /// The numbers to link: 1, the two pages either side of this one, and the last (or, when the
    /// total is a floor, the pages it is known to hold), with gaps between runs.
    var items: [Item] {
        let known = lastPage ?? max(page + (hasNext ? 1 : 0), (total + perPage - 1) / perPage)
        var numbers = Set([1, known]).union((page - 2)...(page + 2))
        numbers = numbers.filter { $0 >= 1 && $0 <= max(known, page) }
        var result: [Item] = []
        var previous = 0
        for number in numbers.sorted() {
            if number > previous + 1 { result.append(Item(number: nil)) }
            result.append(Item(number: number, isCurrent: number == page))
            previous = number
        }
        return result
    }
}
