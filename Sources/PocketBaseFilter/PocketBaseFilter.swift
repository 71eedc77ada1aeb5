import Foundation

/// PocketBase's record filter syntax (`filter=`) and sort syntax (`sort=`) compiled to SQLite SQL over
/// declared fields, every value a bound parameter.
///
/// Semantics follow PocketBase's `tools/search` package where it is subtle:
/// - `=` / `!=` fold `NULL` into `''`: `field = null` and `field = ""` both compile to
///   `("col" = '' OR "col" IS NULL)`, `!=` to `("col" IS NOT '' AND "col" IS NOT NULL)`; against a non-empty
///   value `=` is plain `=` and `!=` is `IS NOT` (so rows whose column is `NULL` count as different); field
///   against field is `COALESCE(a, '') = COALESCE(b, '')`. `.json` fields skip the folding (`IS` / `IS NOT`).
/// - `~` / `!~` are `LIKE` / `NOT LIKE` with `ESCAPE '\'`. A value with an unescaped `%` is used exactly as
///   typed (its `%` and `_` are wildcards, `\%` `\_` literal); any other value has its unescaped `\`, `%`
///   and `_` escaped and is wrapped as `%value%`, i.e. "contains". Against a field: `LIKE ('%' || b || '%')`.
/// - `<`, `<=`, `>`, `>=` compare as SQLite does; `NULL` on either side matches nothing. Dates are stored as
///   `YYYY-MM-DD HH:MM:SS.sssZ` text, so they (and `@now`) compare as strings.
/// - `true` / `false` bind 1 / 0; `null` is SQL `NULL`. A declared field of that name wins over the literal.
/// - `@request.auth.id` is the caller's `requestAuthID`; for a guest it and every `@request.auth.*` is `NULL`,
///   which `=` / `!=` treat like `''` (so `@request.auth.id != ""` is false for guests).
/// - Macros: `@now`, `@todayStart`, `@todayEnd`, `@monthStart`, `@monthEnd`, `@yearStart`, `@yearEnd` (text in
///   the stored date format) and `@second`, `@minute`, `@hour`, `@day`, `@weekday` (0 = Sunday), `@month`,
///   `@year` (integers), all in UTC from `FilterContext.now`.
/// - `field:lower` on a text field compares it in lower case, as PocketBase does.
/// - Refused with an error naming them: any-of operators (`?=`, `?~`, …), other `:modifiers`, `@collection.*` and
///   `@request.*` other than `@request.auth.*`, unknown fields and macros.
public enum PocketBaseFilter {
    /// Inputs longer than this many Unicode scalars are refused before parsing.
    public static let maximumLength = 3_500
    /// Parentheses nested deeper than this are refused.
    public static let maximumDepth = Parser.maximumDepth

    /// Compiles a filter; an empty or whitespace-only filter is an error (callers skip an absent `filter=`).
    public static func compile(_ filter: String, context: FilterContext) throws(FilterError) -> CompiledFilter {
        try checkLength(filter, of: "filter")
        let node = try Parser.parse(filter)
        var compiler = Compiler(context: context)
        let fragment = try compiler.compile(node)
        return CompiledFilter(sql: fragment.sql, arguments: fragment.arguments)
    }

    static func checkLength(_ input: String, of what: String) throws(FilterError) {
        let length = input.unicodeScalars.count
        if length > maximumLength {
            throw FilterError("\(what) is too long: \(length) characters, at most \(maximumLength)", at: nil)
        }
    }
}

/// A piece of SQL and the arguments of its placeholders, in order.
struct Fragment {
    var sql: String
    var arguments: [FilterValue] = []

    static func + (lhs: Fragment, rhs: Fragment) -> Fragment {
        Fragment(sql: lhs.sql + rhs.sql, arguments: lhs.arguments + rhs.arguments)
    }

    static func joined(_ parts: [Fragment], separator: String) -> Fragment {
        Fragment(sql: parts.map(\.sql).joined(separator: separator), arguments: parts.flatMap(\.arguments))
    }
}

extension Fragment: ExpressibleByStringLiteral {
    init(stringLiteral value: String) { self.init(sql: value) }
}

/// An operand after resolution: a declared field's column, or a value.
enum Resolved {
    case column(FilterField)
    /// A text field read through PocketBase's `:lower` modifier.
    case lowercased(FilterField)
    case value(FilterValue)

    /// `NULL` and `''`, which PocketBase's `=` / `!=` treat alike.
    var isEmpty: Bool {
        if case .value(let value) = self { return value == .null || value == .text("") }
        return false
    }

    /// A value known not to be empty (the column side of a comparison may then be compared directly).
    var isKnownNonEmpty: Bool {
        if case .value = self { return !isEmpty }
        return false
    }

    var isJSON: Bool {
        if case .column(let field) = self { return field.kind == .json }
        return false
    }

    var fragment: Fragment {
        switch self {
        case .column(let field):
            let column = quoteIdentifier(field.column)
            return Fragment(sql: field.kind == .json ? "JSON_EXTRACT(\(column), '$')" : column)
        case .lowercased(let field):
            return Fragment(sql: "LOWER(\(quoteIdentifier(field.column)))")
        case .value(.null):
            return "NULL"
        case .value(let value):
            return Fragment(sql: "?", arguments: [value])
        }
    }
}

func quoteIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

struct Compiler {
    let context: FilterContext

    mutating func compile(_ node: FilterNode) throws(FilterError) -> Fragment {
        switch node {
        case .or(let items):
            return "(" + Fragment.joined(try compileAll(items), separator: " OR ") + ")"
        case .and(let items):
            return "(" + Fragment.joined(try compileAll(items), separator: " AND ") + ")"
        case .comparison(let comparison):
            return try compile(comparison)
        }
    }

    private mutating func compileAll(_ nodes: [FilterNode]) throws(FilterError) -> [Fragment] {
        var fragments: [Fragment] = []
        for node in nodes { fragments.append(try compile(node)) }
        return fragments
    }

    private func compile(_ comparison: Comparison) throws(FilterError) -> Fragment {
        let left = try resolve(comparison.left)
        let right = try resolve(comparison.right)
        switch comparison.comparison {
        case .equal: return equality(left, right, equal: true)
        case .notEqual: return equality(left, right, equal: false)
        case .like: return like(left, right, negated: false)
        case .notLike: return like(left, right, negated: true)
        case .greater, .greaterOrEqual, .less, .lessOrEqual:
            return left.fragment + Fragment(sql: " \(comparison.comparison.rawValue) ") + right.fragment
        }
    }

    /// PocketBase's `=` / `!=`: `NULL` and `''` alike, with the cheapest SQL that says so.
    private func equality(_ left: Resolved, _ right: Resolved, equal: Bool) -> Fragment {
        let equalOperator: Fragment = equal ? " = " : " IS NOT "
        if left.isJSON || right.isJSON {
            return left.fragment + (equal ? " IS " : " IS NOT ") + right.fragment
        }
        if left.isEmpty && right.isEmpty {
            return "''" + equalOperator + "''"
        }
        if left.isKnownNonEmpty || right.isKnownNonEmpty {
            let leftSide: Fragment = left.isEmpty ? "''" : left.fragment
            let rightSide: Fragment = right.isEmpty ? "''" : right.fragment
            return leftSide + equalOperator + rightSide
        }
        let (join, nullTest): (Fragment, Fragment) = equal ? (" OR ", " IS NULL") : (" AND ", " IS NOT NULL")
        if left.isEmpty {
            return "(''" + equalOperator + right.fragment + join + right.fragment + nullTest + ")"
        }
        if right.isEmpty {
            return "(" + left.fragment + equalOperator + "''" + join + left.fragment + nullTest + ")"
        }
        return "COALESCE(" + left.fragment + ", '')" + equalOperator + "COALESCE(" + right.fragment + ", '')"
    }

    private func like(_ left: Resolved, _ right: Resolved, negated: Bool) -> Fragment {
        let keyword: Fragment = negated ? " NOT LIKE " : " LIKE "
        if case .value(let value) = right, value != .null {
            let pattern = FilterValue.text(LikePattern.pattern(for: LikePattern.text(of: value)))
            return left.fragment + keyword + Fragment(sql: "?", arguments: [pattern]) + " ESCAPE '\\'"
        }
        return left.fragment + keyword + "('%' || " + right.fragment + " || '%') ESCAPE '\\'"
    }

    private func resolve(_ operand: Operand) throws(FilterError) -> Resolved {
        switch operand.kind {
        case .value(let value):
            return .value(value)
        case .identifier(let name):
            return try resolve(identifier: name, at: operand.position)
        }
    }

    private func resolve(identifier name: String, at position: Int) throws(FilterError) -> Resolved {
        if let colon = name.firstIndex(of: ":") {
            // `field:lower` compares the field in lower case (PocketBase's only text modifier here).
            if name[colon...] == ":lower", let field = context.fields[String(name[..<colon])], field.kind == .text {
                return .lowercased(field)
            }
            throw FilterError("unsupported modifier \"\(name[colon...])\" in \"\(name)\"", at: position)
        }
        if let field = context.fields[name] { return .column(field) }
        switch name.lowercased() {
        case "null": return .value(.null)
        case "true": return .value(.bool(true))
        case "false": return .value(.bool(false))
        default: break
        }
        let authPrefix = "@request.auth."
        if name.hasPrefix(authPrefix) {
            guard let authID = context.requestAuthID else { return .value(.null) }
            let key = String(name.dropFirst(authPrefix.count))
            return .value(key == "id" ? .text(authID) : context.requestAuth[key] ?? .null)
        }
        if name.hasPrefix("@") {
            if let value = DateMacros.value(of: name, now: context.now) { return .value(value) }
            throw FilterError("unsupported identifier \"\(name)\"", at: position)
        }
        throw FilterError("unknown field \"\(name)\"", at: position)
    }
}

/// PocketBase's `~` pattern rules.
enum LikePattern {
    static func text(of value: FilterValue) -> String {
        switch value {
        case .text(let text): return text
        case .int(let integer): return String(integer)
        case .double(let real):
            if real == real.rounded(), abs(real) < 1e15 { return String(Int64(real)) }
            return String(real)
        case .bool(let bool): return bool ? "1" : "0"
        case .null: return ""
        }
    }

    /// The value itself when it has an unescaped `%`; otherwise `%value%` with unescaped `\`, `%`, `_` escaped.
    static func pattern(for value: String) -> String {
        let scalars = Array(value.unicodeScalars)
        if containsUnescapedPercent(scalars) { return value }
        var result = "%"
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\\", index + 1 < scalars.count, isSpecial(scalars[index + 1]) {
                // Already escaped by the user: keep the pair.
                result.unicodeScalars.append(scalar)
                result.unicodeScalars.append(scalars[index + 1])
                index += 2
                continue
            }
            if isSpecial(scalar) { result.unicodeScalars.append("\\") }
            result.unicodeScalars.append(scalar)
            index += 1
        }
        return result + "%"
    }

    private static func isSpecial(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\\" || scalar == "%" || scalar == "_"
    }

    private static func containsUnescapedPercent(_ scalars: [Unicode.Scalar]) -> Bool {
        var escaped = false
        for scalar in scalars {
            if scalar == "%" && !escaped { return true }
            escaped = scalar == "\\" && !escaped
        }
        return false
    }
}
