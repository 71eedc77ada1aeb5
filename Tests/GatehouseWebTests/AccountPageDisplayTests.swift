import Foundation
import Testing

@testable import GatehouseWeb

/// What the account page shows beside the profile: the avatar's initials and the day the account
/// was made, both computed on every request (ASCII byte by byte, dates by hand).
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

    /// By hand since issue 13 (no ICU in the server): what the English format styles wrote in UTC.
    @Test func datesReadAsTheEnglishFormatStylesWroteThem() {
        let locale = Locale(identifier: "en_001")
        let utc = TimeZone(identifier: "UTC") ?? .current
        var day = Date.FormatStyle(locale: locale, timeZone: utc).year().month(.wide).day()
        var dateTime = Date.FormatStyle(date: .abbreviated, time: .standard, locale: locale, timeZone: utc)
        day.timeZone = utc
        dateTime.timeZone = utc
        var generator = SystemRandomNumberGenerator()
        let fixed: [Double] = [0, -1, 43_199.999, 43_200, 86_399.999, 951_782_400, 1_795_436_047.287]
        let random = (0..<2000).map { _ in Double.random(in: -2_208_988_800...4_102_444_800, using: &generator) }
        for seconds in fixed + random {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(DisplayDate.format(date) == date.formatted(day), "\(seconds)")
            #expect(DisplayDate.dateTime(date) == date.formatted(dateTime), "\(seconds)")
        }
    }
}
