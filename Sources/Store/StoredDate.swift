import CivilTime
import Foundation
import GRDB

/// The dates Gatehouse stores: `yyyy-MM-dd HH:mm:ss.SSS` in UTC, the text GRDB's own `Date`
/// conversion writes (see `AppDatabase`), written and read without a calendar (`CivilTime`):
/// GRDB's conversion runs a `DateFormatter` per date, which loads ICU's calendar data into the
/// server, and the hot reads decode several dates per request.
enum StoredDate {
    /// The stored text for `date`, byte for byte what GRDB's `DateFormatter` wrote: Foundation
    /// hands ICU the milliseconds since 1970 plus a half, which ICU rounds down, so this is the
    /// nearest millisecond (not the truncation `HotArgument` binds; the two differ by under a
    /// millisecond). Nil outside years 1–9999, which GRDB converts.
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

extension Date {
    /// This date as a statement argument in Gatehouse's stored text (`StoredDate`), for every
    /// `Date` handed to GRDB: GRDB's own conversion would format it with ICU.
    public var storedText: DatabaseValue {
        StoredDate.text(self).map(\.databaseValue) ?? databaseValue
    }
}

/// A record whose `Date` properties are encoded as `StoredDate` text rather than through GRDB's
/// `DateFormatter` (which loads ICU into the server); every persistable record with dates
/// conforms.
public protocol StoredDateRecord: EncodableRecord {}

extension StoredDateRecord {
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .custom { $0.storedText }
    }
}

extension UserRecord: StoredDateRecord {}
extension VerificationTokenRecord: StoredDateRecord {}
extension SignInTokenRecord: StoredDateRecord {}
