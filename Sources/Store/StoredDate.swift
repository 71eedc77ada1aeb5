import CivilTime
import Foundation
import GRDB

/// The dates Gatehouse stores: `yyyy-MM-dd HH:mm:ss.SSS` in UTC, the text GRDB's own `Date`
/// conversion writes (see `AppDatabase`), written and read without a calendar (`CivilTime`):
/// GRDB's conversion runs a `DateFormatter` per date, which loads ICU's calendar data into the
/// server, and the hot reads decode several dates per request.
enum StoredDate {
    /// 0001-01-01 00:00:00.000, the earliest date with a stored text (`Date.distantPast`, in year 0
    /// of the proleptic calendar, has none and would go to GRDB's formatter).
    static let earliest = Date(timeIntervalSince1970: -62_135_596_800)

    /// The stored text for `date`, byte for byte what GRDB's `DateFormatter` wrote: Foundation
    /// hands ICU the milliseconds since 1970 plus a half, which ICU rounds down, so this is the
    /// nearest millisecond (`HotArgument` binds dates the same way). Nil outside years 1–9999,
    /// which GRDB converts.
    static func text(_ date: Date) -> String? {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down))
        return CivilTime.text(milliseconds: milliseconds, separator: UInt8(ascii: " "))
    }

    /// The date in `text` (`yyyy-MM-dd HH:mm:ss`, a `T` allowed for the space, then optionally
    /// `.` and up to nine fraction digits, of which milliseconds count); nil for any other shape,
    /// which the caller hands to GRDB's general parser.
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        guard let (reading, length) = CivilTime.read(text, separators: [UInt8(ascii: " "), UInt8(ascii: "T")]),
            length == text.count
        else { return nil }
        var (milliseconds, digits) = (reading.fraction, reading.fractionDigits)
        while digits > 3 { (milliseconds, digits) = (milliseconds / 10, digits - 1) }
        while digits < 3 { (milliseconds, digits) = (milliseconds * 10, digits + 1) }
        return Date(
            timeIntervalSinceReferenceDate: Double(reading.seconds - 978_307_200) + Double(milliseconds) / 1_000)
    }
}

extension StoredDate {
    /// The date GRDB would read from `value`: the stored shape by hand, anything else (a number,
    /// a hand-edited row) through GRDB's general conversion.
    static func date(from value: DatabaseValue) -> Date? {
        if case .string(var text) = value.storage, let date = text.withUTF8({ parse($0) }) { return date }
        return Date.fromDatabaseValue(value)
    }
}

extension Date {
    /// This date as a statement argument in Gatehouse's stored text (`StoredDate`), for every
    /// `Date` handed to GRDB: GRDB's own conversion would format it with ICU.
    public var storedText: DatabaseValue {
        StoredDate.text(self).map(\.databaseValue) ?? databaseValue
    }
}

/// A record whose `Date` properties GRDB encodes or decodes through `Codable`, as `StoredDate`
/// text: GRDB's own conversion formats with a `DateFormatter` and reads through `Calendar`, and
/// both load ICU into the server. Records that read their columns by name (`ColumnValues`) read
/// dates by hand already.
public protocol StoredDateRecord {}

extension StoredDateRecord where Self: EncodableRecord {
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .custom { $0.storedText }
    }
}

extension StoredDateRecord where Self: FetchableRecord {
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .custom(StoredDate.date(from:))
    }
}

// Every record with dates that goes through `Codable` (the others read by name).
extension UserRecord: StoredDateRecord {}
extension VerificationTokenRecord: StoredDateRecord {}
extension SignInTokenRecord: StoredDateRecord {}
extension AuditEventRecord: StoredDateRecord {}
extension AppRecord: StoredDateRecord {}
extension AppCodeRecord: StoredDateRecord {}
extension OAuthFlowRecord: StoredDateRecord {}
extension TestIdentityRecord: StoredDateRecord {}

extension Row {
    /// The date in `column` read as `StoredDate` does; nil for NULL or a value that is no date.
    func storedDate(_ column: String) -> Date? {
        StoredDate.date(from: self[column])
    }
}
