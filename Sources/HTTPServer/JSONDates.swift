import Foundation

/// ISO-8601 dates with fractional seconds, the one date format of Gatehouse's JSON.
enum JSONDates {
    static func encode(_ date: Date, to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(date.formatted(style))
    }

    static func decode(from decoder: any Decoder) throws -> Date {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        if let date = try? style.parse(text) {
            return date
        }
        if let date = try? Date.ISO8601FormatStyle().parse(text) {
            return date
        }
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected an ISO-8601 date")
    }

    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
