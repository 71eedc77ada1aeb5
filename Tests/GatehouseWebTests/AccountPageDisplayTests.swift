import Foundation
import Testing

@testable import GatehouseWeb

/// What the account page shows beside the profile: the avatar's initials and the day the account
/// was made, both computed on every request (ASCII byte by byte, dates remembered).
@Suite struct AccountPageDisplayTests {
    @Test func initialsAreTheFirstLettersOfTwoWordsElseOfTheEmail() {
        #expect(Initials.of(name: "Ada Lovelace", email: "ada@example.com") == "AL")
        #expect(Initials.of(name: "  ada \t lovelace king ", email: "ada@example.com") == "AL")
        #expect(Initials.of(name: "x", email: "ada@example.com") == "X")
        #expect(Initials.of(name: "\tfoo\r\nbar", email: "ada@example.com") == "FB")
        #expect(Initials.of(name: "  ", email: "zed@example.com") == "Z")
        #expect(Initials.of(name: "", email: "") == "")
        #expect(Initials.of(name: "émile zola", email: "e@example.com") == "ÉZ")
        #expect(Initials.of(name: "", email: "ßig@example.com") == "SS")
        #expect(Initials.of(name: "1st 2nd", email: "a@example.com") == "12")
    }

    @Test func theSameDayReadsTheSameEveryTime() {
        let date = Date(timeIntervalSince1970: 1_795_000_000)
        let expected = date.formatted(.dateTime.year().month(.wide).day())
        #expect(DisplayDate.format(date) == expected)
        #expect(DisplayDate.format(date) == expected)
        let later = date.addingTimeInterval(86_400 * 40)
        #expect(DisplayDate.format(later) == later.formatted(.dateTime.year().month(.wide).day()))
        #expect(DisplayDate.format(later) != expected)
    }
}
