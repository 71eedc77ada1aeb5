import Foundation

/// Gatehouse's one date format on the wire: ISO 8601 in UTC with milliseconds
/// (`2026-11-23T05:49:00.123Z`), for JSON bodies built by hand and for `Codable` dates alike.
public enum Timestamp {
    public static func iso8601(_ date: Date) -> String {
        utc(date, separator: "T") ?? date.formatted(style)
    }

    /// `yyyy-MM-dd<separator>HH:mm:ss.SSSZ` in UTC, milliseconds truncated as Foundation's styles
    /// do; nil outside years 1–9999. Written by hand: a format style costs more than the rest of
    /// an API answer (a list of fifty records has a hundred dates).
    public static func utc(_ date: Date, separator: Character) -> String? {
        // A millionth of a millisecond up: a stored `.287` reads back as `.28699999…` seconds.
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000 + 1e-6).rounded(.down))
        let (days, dayMilliseconds) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        let (day, time) = dayMilliseconds < 0 ? (days - 1, dayMilliseconds + 86_400_000) : (days, dayMilliseconds)
        // Civil date from days since 1970-01-01 (H. Hinnant, "chrono-compatible low-level date algorithms").
        let shifted = day + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard (1...9999).contains(year) else { return nil }
        var text: [UInt8] = []
        text.reserveCapacity(24)
        func append(_ value: Int64, digits: Int) {
            var divisor: Int64 = 1
            for _ in 1..<digits { divisor *= 10 }
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        append(year, digits: 4)
        text.append(UInt8(ascii: "-"))
        append(month, digits: 2)
        text.append(UInt8(ascii: "-"))
        append(dayOfMonth, digits: 2)
        text.append(contentsOf: String(separator).utf8)
        append(time / 3_600_000, digits: 2)
        text.append(UInt8(ascii: ":"))
        append(time / 60_000 % 60, digits: 2)
        text.append(UInt8(ascii: ":"))
        append(time / 1000 % 60, digits: 2)
        text.append(UInt8(ascii: "."))
        append(time % 1000, digits: 3)
        text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }

    /// Parses what `iso8601` writes, and the same without fractional seconds.
    public static func parse(_ text: String) -> Date? {
        (try? style.parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
