import Foundation

/// PocketBase's date macros (`@now`, `@todayStart`, `@year`, ...), computed in UTC. Dates are rendered in the
/// stored format `YYYY-MM-DD HH:MM:SS.sssZ`.
enum DateMacros {
    static func value(of name: String, now: Date) -> FilterValue? {
        let parts = UTCParts(now)
        switch name {
        case "@now": return .text(parts.formatted)
        case "@second": return .int(Int64(parts.second))
        case "@minute": return .int(Int64(parts.minute))
        case "@hour": return .int(Int64(parts.hour))
        case "@day": return .int(Int64(parts.day))
        case "@weekday": return .int(Int64(parts.weekday))
        case "@month": return .int(Int64(parts.month))
        case "@year": return .int(Int64(parts.year))
        case "@todayStart": return .text(parts.with(hour: 0).formatted)
        case "@todayEnd": return .text(parts.with(hour: 23).formatted)
        case "@monthStart": return .text(parts.with(day: 1, hour: 0).formatted)
        case "@monthEnd":
            return .text(parts.with(day: UTCParts.daysIn(month: parts.month, of: parts.year), hour: 23).formatted)
        case "@yearStart": return .text(parts.with(month: 1, day: 1, hour: 0).formatted)
        case "@yearEnd": return .text(parts.with(month: 12, day: 31, hour: 23).formatted)
        default: return nil
        }
    }
}

/// The proleptic Gregorian calendar fields of an instant in UTC, to the millisecond.
struct UTCParts: Equatable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int
    var millisecond: Int
    /// 0 = Sunday ... 6 = Saturday.
    var weekday: Int

    init(_ date: Date) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let (days, inDay) = Self.floorDivide(milliseconds, 86_400_000)
        millisecond = Int(inDay % 1000)
        second = Int(inDay / 1000 % 60)
        minute = Int(inDay / 60_000 % 60)
        hour = Int(inDay / 3_600_000)
        weekday = Int(Self.floorDivide(days + 4, 7).remainder)  // 1970-01-01 was a Thursday.
        // Civil date from days since the epoch (Howard Hinnant's algorithm, 400-year eras from 0000-03-01).
        let shifted = days + 719_468
        let era = Self.floorDivide(shifted, 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
    }

    /// A copy at the start (hour 0) or the end (hour 23, 23:59:59.999) of the given day.
    func with(month: Int? = nil, day: Int? = nil, hour: Int) -> UTCParts {
        var copy = self
        copy.month = month ?? self.month
        copy.day = day ?? self.day
        copy.hour = hour
        copy.minute = hour == 0 ? 0 : 59
        copy.second = hour == 0 ? 0 : 59
        copy.millisecond = hour == 0 ? 0 : 999
        return copy
    }

    var formatted: String {
        "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2)) "
            + "\(Self.pad(hour, 2)):\(Self.pad(minute, 2)):\(Self.pad(second, 2)).\(Self.pad(millisecond, 3))Z"
    }

    static func daysIn(month: Int, of year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        var quotient = value / divisor
        var remainder = value % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }
}
