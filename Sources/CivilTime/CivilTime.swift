/// UTC calendar text for instants counted from 1970, written and read by hand (H. Hinnant,
/// "chrono-compatible low-level date algorithms"), for the dates Gatehouse stores and puts on the
/// wire. A format style or `DateFormatter` would load ICU's calendar data into the server (about
/// 4 MiB resident) and cost more than the rest of an answer.
public enum CivilTime {
    /// `yyyy-MM-dd<separator>HH:mm:ss.SSS` in UTC for `milliseconds` since 1970, then `suffix`;
    /// nil outside years 1–9999.
    public static func text(milliseconds: Int64, separator: UInt8, suffix: String = "") -> String? {
        let (year, month, dayOfMonth, time) = components(milliseconds: milliseconds)
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
        text.append(separator)
        append(time / 3_600_000, digits: 2)
        text.append(UInt8(ascii: ":"))
        append(time / 60_000 % 60, digits: 2)
        text.append(UInt8(ascii: ":"))
        append(time / 1000 % 60, digits: 2)
        text.append(UInt8(ascii: "."))
        append(time % 1000, digits: 3)
        text.append(contentsOf: suffix.utf8)
        return String(decoding: text, as: UTF8.self)
    }

    /// A UTC date and time read from text: whole seconds since 1970 and the fraction of a second
    /// as written (`fraction` / 10^`fractionDigits`).
    public struct Reading: Equatable, Sendable {
        public var seconds: Int64
        public var fraction: Int64
        public var fractionDigits: Int
    }

    /// Reads `yyyy-MM-dd<separator>HH:mm:ss` at the start of `text`, then optionally `.` and one
    /// to nine fraction digits; `separators` lists the bytes allowed between date and time.
    /// Returns the reading and how many bytes it took; nil for any other shape or an impossible
    /// field (month 13, hour 24).
    public static func read(
        _ text: UnsafeBufferPointer<UInt8>, separators: [UInt8]
    ) -> (reading: Reading, length: Int)? {
        guard text.count >= 19, text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"),
            separators.contains(text[10]), text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"),
            let year = number(text, 0, 4), let month = number(text, 5, 2), let day = number(text, 8, 2),
            let hour = number(text, 11, 2), let minute = number(text, 14, 2), let second = number(text, 17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        let seconds = daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
        guard text.count > 19, text[19] == UInt8(ascii: ".") else {
            return (Reading(seconds: seconds, fraction: 0, fractionDigits: 0), 19)
        }
        var fractionDigits = 0
        while 20 + fractionDigits < text.count, isDigit(text[20 + fractionDigits]) { fractionDigits += 1 }
        guard (1...9).contains(fractionDigits), let fraction = number(text, 20, fractionDigits) else { return nil }
        return (Reading(seconds: seconds, fraction: fraction, fractionDigits: fractionDigits), 20 + fractionDigits)
    }

    /// The decimal number in `count` ASCII digits at `start`.
    public static func number(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int64? {
        var value: Int64 = 0
        for byte in text[start..<start + count] {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (`days_from_civil`).
    static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The UTC calendar day of `milliseconds` since 1970 and the milliseconds into that day.
    public static func components(
        milliseconds: Int64
    ) -> (year: Int64, month: Int64, day: Int64, millisecondOfDay: Int64) {
        let (days, dayMilliseconds) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        let (day, time) = dayMilliseconds < 0 ? (days - 1, dayMilliseconds + 86_400_000) : (days, dayMilliseconds)
        let (year, month, dayOfMonth) = civilDate(daysSince1970: day)
        return (year, month, dayOfMonth, time)
    }

    /// The proleptic Gregorian date `day` days after 1970-01-01 (`civil_from_days`).
    public static func civilDate(daysSince1970 day: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = day + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, dayOfMonth)
    }
}
