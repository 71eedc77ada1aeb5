import Foundation

/// Reads the dates Gatehouse stores (`yyyy-MM-dd HH:mm:ss.SSS` in UTC, see `AppDatabase`) without
/// a calendar: the hot reads decode several per request.
enum StoredDate {
    /// The date in `text` (`yyyy-MM-dd HH:mm:ss`, a `T` allowed for the space, then optionally
    /// `.` and up to nine fraction digits, of which milliseconds count); nil for any other shape,
    /// which the caller hands to GRDB's general parser.
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        guard text.count >= 19, text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"),
            text[10] == UInt8(ascii: " ") || text[10] == UInt8(ascii: "T"),
            text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"),
            let year = number(text, 0, 4), let month = number(text, 5, 2), let day = number(text, 8, 2),
            let hour = number(text, 11, 2), let minute = number(text, 14, 2), let second = number(text, 17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        var milliseconds: Int64 = 0
        if text.count > 19 {
            let fraction = text.count - 20
            guard text[19] == UInt8(ascii: "."), (1...9).contains(fraction),
                let digits = number(text, 20, min(fraction, 3))
            else { return nil }
            guard fraction <= 3 || number(text, 23, fraction - 3) != nil else { return nil }
            milliseconds = digits * [100, 10, 1][min(fraction, 3) - 1]
        }
        let seconds = daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(
            timeIntervalSinceReferenceDate: Double(seconds - 978_307_200) + Double(milliseconds) / 1_000)
    }

    /// The decimal number in `count` ASCII digits at `start`.
    private static func number(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int64? {
        var value: Int64 = 0
        for byte in text[start..<start + count] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant, "chrono-compatible low-level
    /// date algorithms", `days_from_civil`).
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
