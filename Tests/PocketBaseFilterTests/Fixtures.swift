import Foundation
import PocketBaseFilter

/// The declared fields of a small `users` collection the suites filter and sort over.
enum Fixtures {
    static let fields: [FilterField] = [
        FilterField("id"),
        FilterField("email"),
        FilterField("name"),
        FilterField("owner", column: "owner_id"),
        FilterField("verified", kind: .bool),
        FilterField("age", kind: .number),
        FilterField("created", kind: .date),
        FilterField("updated", kind: .date),
        FilterField("meta", kind: .json)
    ]

    /// 2024-02-29 13:45:07.125 UTC, a Thursday in a leap February.
    static let now = Date(timeIntervalSince1970: 1_709_214_307.125)

    static func context(
        authID: String? = nil, auth: [String: FilterValue] = [:], now: Date = Fixtures.now
    ) -> FilterContext {
        FilterContext(fields: fields, requestAuthID: authID, requestAuth: auth, now: now)
    }

    static func compile(_ filter: String, authID: String? = nil, auth: [String: FilterValue] = [:]) throws
        -> CompiledFilter
    {
        try PocketBaseFilter.compile(filter, context: context(authID: authID, auth: auth))
    }

    /// The message of the error compiling `filter` throws, or nil when it compiles.
    static func error(_ filter: String) -> String? {
        do throws(FilterError) {
            _ = try PocketBaseFilter.compile(filter, context: context())
            return nil
        } catch {
            return error.message
        }
    }
}
