import Foundation

/// `Codable` dates as `Timestamp` writes and reads them.
enum JSONDates {
    static func encode(_ date: Date, to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Timestamp.iso8601(date))
    }

    static func decode(from decoder: any Decoder) throws -> Date {
        let container = try decoder.singleValueContainer()
        guard let date = Timestamp.parse(try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected an ISO-8601 date")
        }
        return date
    }
}
