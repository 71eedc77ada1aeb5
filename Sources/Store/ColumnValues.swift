import Foundation
import GRDB

/// One result row's values by column name. GRDB's `Row` and the hot reads' `HotRow` both offer
/// them, so each record maps its columns once (`init(columns:)`) for either path.
protocol ColumnValues {
    func optionalString(_ column: String) throws -> String?
    func optionalInt64(_ column: String) throws -> Int64?
    func optionalData(_ column: String) throws -> Data?
    func optionalDate(_ column: String) throws -> Date?
}

extension ColumnValues {
    func string(_ column: String) throws -> String {
        try required(optionalString(column), column)
    }

    func int64(_ column: String) throws -> Int64 {
        try required(optionalInt64(column), column)
    }

    /// SQLite's booleans are integers; NULL reads as false.
    func bool(_ column: String) throws -> Bool {
        try optionalInt64(column).map { $0 != 0 } ?? false
    }

    func date(_ column: String) throws -> Date {
        try required(optionalDate(column), column)
    }

    private func required<T>(_ value: T?, _ column: String) throws -> T {
        guard let value else { throw DatabaseError(message: "\(column) is NULL or missing") }
        return value
    }
}

extension Row: ColumnValues {
    func optionalString(_ column: String) throws -> String? { self[column] }
    func optionalInt64(_ column: String) throws -> Int64? { self[column] }
    func optionalData(_ column: String) throws -> Data? { self[column] }
    func optionalDate(_ column: String) throws -> Date? { storedDate(column) }
}
