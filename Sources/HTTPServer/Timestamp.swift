import Foundation

/// Gatehouse's one date format on the wire: ISO 8601 in UTC with milliseconds
/// (`2026-11-23T05:49:00.123Z`), for JSON bodies built by hand and for `Codable` dates alike.
public enum Timestamp {
    public static func iso8601(_ date: Date) -> String {
        date.formatted(style)
    }

    /// Parses what `iso8601` writes, and the same without fractional seconds.
    public static func parse(_ text: String) -> Date? {
        (try? style.parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
