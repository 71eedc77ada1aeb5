import Foundation

/// A record field a filter or sort may name, and the SQLite column it reads.
///
/// Only declared fields resolve: a name missing from the map (say `passwordHash`) is an error naming it,
/// so the map doubles as the list of what a caller is allowed to filter and sort by. `column` is trusted
/// (the caller's schema, never user input) and is always written double-quoted.
public struct FilterField: Sendable, Equatable {
    /// How a field's values are stored; this changes only how `=` / `!=` treat empties (see ``Kind/json``).
    public enum Kind: Sendable, Equatable {
        /// Text (also emails, ids, relations): `NULL` and `''` compare alike, as in PocketBase.
        case text
        /// Stored as 0/1; compare with `true`/`false`.
        case bool
        /// Stored as `YYYY-MM-DD HH:MM:SS.sssZ` text, so ordering and `=` are plain string comparisons.
        case date
        /// Integer or real.
        case number
        /// JSON text, compared through `JSON_EXTRACT(column, '$')` with `IS` / `IS NOT` and no `NULL`/`''`
        /// folding (PocketBase's "no coalesce" rule for JSON values).
        case json
    }

    /// The name used in filters and sorts (`created`, `email`).
    public let name: String
    /// The SQLite column (unquoted); written as `"column"` in the SQL.
    public let column: String
    public let kind: Kind

    public init(_ name: String, column: String? = nil, kind: Kind = .text) {
        self.name = name
        self.column = column ?? name
        self.kind = kind
    }
}

/// A value bound to a `?` placeholder of a ``CompiledFilter``.
public enum FilterValue: Sendable, Equatable, Hashable {
    case text(String)
    case int(Int64)
    case double(Double)
    /// Bind as the integer 1 or 0 (how SQLite stores booleans).
    case bool(Bool)
    case null
}

/// What a filter is compiled against: the declared fields and the request's values.
public struct FilterContext: Sendable {
    /// Declared fields by filter name.
    public var fields: [String: FilterField]
    /// The authenticated record's id, or `nil` for a guest. For a guest every `@request.auth.*` is `NULL`,
    /// which `=` / `!=` treat like `''` (so `@request.auth.id != ""` is false and `owner = @request.auth.id`
    /// matches rows whose owner is empty or `NULL`, exactly as in PocketBase).
    public var requestAuthID: String?
    /// Other `@request.auth.<field>` values of the authenticated record, already resolved by the caller
    /// (for example `"email"`, `"verified"`). A field not listed resolves to `NULL`, as PocketBase does for
    /// missing `@request.*` fields. Ignored for guests.
    public var requestAuth: [String: FilterValue]
    /// The instant `@now` and the other date macros (`@todayStart`, `@year`, ...) are computed from, in UTC.
    public var now: Date

    public init(
        fields: [FilterField], requestAuthID: String? = nil, requestAuth: [String: FilterValue] = [:],
        now: Date = Date()
    ) {
        var byName: [String: FilterField] = [:]
        for field in fields { byName[field.name] = field }
        self.fields = byName
        self.requestAuthID = requestAuthID
        self.requestAuth = requestAuth
        self.now = now
    }
}

/// A compiled filter: a self-contained SQLite boolean expression (safe to `AND` with other conditions) and
/// the values for its `?` placeholders, in order. No text from the filter ever appears in `sql`.
public struct CompiledFilter: Sendable, Equatable {
    public let sql: String
    public let arguments: [FilterValue]

    public init(sql: String, arguments: [FilterValue]) {
        self.sql = sql
        self.arguments = arguments
    }
}

/// A compiled sort: the terms for an `ORDER BY` clause (without the keyword), or an empty string for none.
public struct CompiledSort: Sendable, Equatable {
    public struct Term: Sendable, Equatable {
        /// The declared field, or `nil` for `@random` / `@rowid`.
        public let field: FilterField?
        public let descending: Bool
        public let sql: String
    }

    public let terms: [Term]

    /// The terms joined by `, `, e.g. `"created" DESC, "email" ASC`; empty when there are no terms.
    public var sql: String { terms.map(\.sql).joined(separator: ", ") }

    /// `ORDER BY <terms>`, or an empty string when there are no terms.
    public var orderByClause: String { terms.isEmpty ? "" : "ORDER BY " + sql }
}

/// A filter or sort the compiler refused. `message` names the offending part and, where there is one, its
/// position: a 0-based offset in Unicode scalars into the input (`unexpected ")" at 14`).
public struct FilterError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public let position: Int?

    /// `reason at position (hint)`, e.g. `unexpected ")" at 14 (expected a field or a value)`.
    public init(_ reason: String, at position: Int?, hint: String? = nil) {
        var message = position.map { "\(reason) at \($0)" } ?? reason
        if let hint { message += " (\(hint))" }
        self.message = message
        self.position = position
    }

    public var description: String { message }
}
