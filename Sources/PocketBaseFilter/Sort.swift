extension PocketBaseFilter {
    /// Compiles PocketBase's `sort=` syntax: comma-separated fields, each optionally prefixed with `-`
    /// (descending) or `+` (ascending, the default), surrounding whitespace ignored. `@random` sorts by
    /// `RANDOM()` (its sign is ignored) and `@rowid` by SQLite's `_rowid_`, as in PocketBase. An empty or
    /// whitespace-only sort has no terms; an empty item (`a,,b`) or an undeclared field is an error naming it.
    public static func compileSort(_ sort: String, fields: [String: FilterField]) throws(FilterError) -> CompiledSort {
        try checkLength(sort, of: "sort")
        if sort.allSatisfy(\.isWhitespace) { return CompiledSort(terms: []) }
        var terms: [CompiledSort.Term] = []
        var offset = 0
        for item in sort.unicodeScalars.split(separator: ",", omittingEmptySubsequences: false) {
            defer { offset += item.count + 1 }
            let leading = item.prefix(while: \.properties.isWhitespace).count
            var name = String(String.UnicodeScalarView(item)).trimmingWhitespace()
            var position = offset + leading
            var descending = false
            if name.hasPrefix("-") || name.hasPrefix("+") {
                descending = name.hasPrefix("-")
                name.removeFirst()
                position += 1
            }
            terms.append(try term(name, descending: descending, fields: fields, at: position))
        }
        return CompiledSort(terms: terms)
    }

    private static func term(
        _ name: String, descending: Bool, fields: [String: FilterField], at position: Int
    ) throws(FilterError) -> CompiledSort.Term {
        let direction = descending ? "DESC" : "ASC"
        if let field = fields[name] {
            let column = quoteIdentifier(field.column)
            let expression = field.kind == .json ? "JSON_EXTRACT(\(column), '$')" : column
            return CompiledSort.Term(field: field, descending: descending, sql: "\(expression) \(direction)")
        }
        switch name {
        case "":
            throw FilterError("empty sort field", at: position)
        case "@random":
            return CompiledSort.Term(field: nil, descending: false, sql: "RANDOM()")
        case "@rowid":
            return CompiledSort.Term(field: nil, descending: descending, sql: "_rowid_ \(direction)")
        default:
            throw FilterError("unknown sort field \"\(name)\"", at: position)
        }
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let scalars = unicodeScalars.drop(while: \.properties.isWhitespace)
        let end = scalars.lastIndex(where: { !$0.properties.isWhitespace }).map { scalars.index(after: $0) }
        return String(String.UnicodeScalarView(scalars[..<(end ?? scalars.startIndex)]))
    }
}
