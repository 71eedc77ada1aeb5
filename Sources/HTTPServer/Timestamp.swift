import CivilTime
import Foundation

/// Gatehouse's one date format on the wire: ISO 8601 in UTC with milliseconds
/// (`2026-11-23T05:49:00.123Z`), for JSON bodies built by hand and for `Codable` dates alike.
public enum Timestamp {
    public static func iso8601(_ date: Date) -> String {
        utc(date, separator: "T") ?? date.formatted(style)
    }

    /// `yyyy-MM-dd<separator>HH:mm:ss.SSSZ` in UTC, milliseconds truncated as Foundation's styles
    /// do; nil outside years 1–9999. Written by hand (`CivilTime`): a format style costs more than
    /// the rest of an API answer (a list of fifty records has a hundred dates).
    public static func utc(_ date: Date, separator: Character) -> String? {
        // A millionth of a millisecond up: a stored `.287` reads back as `.28699999…` seconds.
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000 + 1e-6).rounded(.down))
        guard let separator = separator.asciiValue else { return nil }
        return CivilTime.text(milliseconds: milliseconds, separator: separator, suffix: "Z")
    }

    /// Parses what `iso8601` writes, and the same without fractional seconds or with up to nine
    /// fraction digits, ending in `Z` (or `z`) or a `±HH:MM` / `±HHMM` offset. By hand, as
    /// `utc` writes: Foundation's ISO 8601 parser loads ICU's calendars.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes in
            guard let (reading, length) = CivilTime.read(bytes, separators: [UInt8(ascii: "T")]),
                let offset = offsetSeconds(bytes, from: length)
            else { return nil }
            let seconds = Double(reading.seconds - offset - 978_307_200)
            var scale = 1.0
            for _ in 0..<reading.fractionDigits { scale *= 10 }
            return Date(timeIntervalSinceReferenceDate: seconds + Double(reading.fraction) / scale)
        }
    }

    /// The zone offset that ends `text` at `start`, in seconds east of UTC; nil for anything else.
    private static func offsetSeconds(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int64? {
        let rest = text.count - start
        if rest == 1, text[start] | 0x20 == UInt8(ascii: "z") { return 0 }
        guard rest == 5 || rest == 6, text[start] == UInt8(ascii: "+") || text[start] == UInt8(ascii: "-"),
            rest == 5 || text[start + 3] == UInt8(ascii: ":"),
            let hours = CivilTime.number(text, start + 1, 2), let minutes = CivilTime.number(text, text.count - 2, 2),
            hours < 24, minutes < 60
        else { return nil }
        return (text[start] == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
    }

    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
