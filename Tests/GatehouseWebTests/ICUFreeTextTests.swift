import AuthCore
import Foundation
import ServerSeam
import Testing

@testable import GatehouseWeb

/// The console's counts and chart labels are written by hand so the server never loads ICU
/// (issue 13); they must read as the English format styles wrote them before.
@Suite struct ICUFreeTextTests {
    @Test func countsAreGroupedAsIntFormattedGroupsThem() {
        var generator = SystemRandomNumberGenerator()
        let fixed = [0, 1, -1, 999, 1000, -1000, 12_345, 999_999, 1_000_000, Int.max, Int.min]
        let random = (0..<2000).map { _ in Int.random(in: -10_000_000_000...10_000_000_000, using: &generator) }
        for count in fixed + random {
            #expect(CountText.grouped(count) == count.formatted(.number.locale(Locale(identifier: "en_US"))))
        }
    }

    @Test func chartDayLabelsReadAsTheFormatStyleWroteThem() {
        var style = Date.FormatStyle(locale: Locale(identifier: "en_US")).weekday(.abbreviated).day()
        style.timeZone = TimeZone(identifier: "UTC") ?? .current
        var generator = SystemRandomNumberGenerator()
        let fixed: [Double] = [0, -1, 86_399.9, 951_782_400, 1_709_164_800, 4_102_444_799]
        let random = (0..<2000).map { _ in Double.random(in: -2_208_988_800...4_102_444_800, using: &generator) }
        for seconds in fixed + random {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(SignInChart.dayLabel(date) == date.formatted(style), "\(seconds)")
        }
    }
}
