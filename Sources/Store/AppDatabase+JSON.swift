import AuthCore
import Foundation

extension AppDatabase {
    /// A JSON object as stored in TEXT columns: compact with sorted keys, so equal values store
    /// equal text.
    static func json(_ object: [String: JSONValue]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(object), as: UTF8.self)
    }
}
