import AuthCore
import GRDB
import PocketBaseFilter

/// A `UserQuery`'s PocketBase-syntax filter and sort, compiled to SQL over the `users` table seen as
/// PocketBase's `users` records: the profile's `name` and `avatar_url` and the `emailVisibility`
/// flag become columns, dates read as PocketBase writes them (`2026-11-22 11:05:29.111Z`).
struct UserRecordFilter {
    /// The record fields a filter or sort may name (anything else is refused by name).
    static let fields: [FilterField] = [
        FilterField("id"), FilterField("email"), FilterField("verified", kind: .bool),
        FilterField("created", kind: .date), FilterField("updated", kind: .date), FilterField("name"),
        FilterField("avatar"), FilterField("emailVisibility", kind: .bool)
    ]

    /// The users table with the record fields as columns; SQLite flattens it into the outer query.
    private static let recordView = recordView(of: "users")

    /// `table` (the users table, or rows with its columns) with the record fields as columns.
    static func recordView(of table: String) -> String {
        """
        (SELECT *, created_at || 'Z' AS created, updated_at || 'Z' AS updated,
            json_extract(profile, '$.name') AS name, json_extract(profile, '$.avatar_url') AS avatar,
            coalesce(json_extract(profile, '$.emailVisibility'), 0) AS emailVisibility FROM \(table)) AS users
        """
    }

    let filter: CompiledFilter?
    /// The ORDER BY clause (without the keywords), ending with `id` so pages are stable.
    let sort: String?
    /// What to select from: the plain table, or the record view when a filter or sort needs it.
    var source: String { filter == nil && sort == nil ? "users" : Self.recordView }

    /// Refuses a filter or sort it cannot evaluate with `.validation` on `filter` or `sort`, naming
    /// the part (PocketBase says only "Something went wrong").
    init(_ query: UserQuery) throws {
        let context = FilterContext(fields: Self.fields, requestAuthID: query.filterAuthID)
        do {
            let text = query.filter.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
            var compiled = try text.map { try PocketBaseFilter.compile($0, context: context) }
            if let text, let found = compiled, query.emailFilterNeedsVisibility {
                // It names `email` exactly when it does not compile without that field.
                let withoutEmail = FilterContext(
                    fields: Self.fields.filter { $0.name != "email" }, requestAuthID: query.filterAuthID)
                if (try? PocketBaseFilter.compile(text, context: withoutEmail)) == nil {
                    compiled = CompiledFilter(sql: "(\(found.sql)) AND \"emailVisibility\" = 1", arguments: found.arguments)
                }
            }
            filter = compiled
        } catch let error as FilterError {
            throw AuthError.validation([FieldError(field: "filter", message: error.description)])
        }
        do {
            let terms = try query.sortExpression.map { try PocketBaseFilter.compileSort($0, fields: context.fields) }
            sort = terms.flatMap { $0.terms.isEmpty ? nil : $0.sql + ", id" }
        } catch let error as FilterError {
            throw AuthError.validation([FieldError(field: "sort", message: error.description)])
        }
    }
}

extension StatementArguments {
    /// A compiled filter's bound values.
    static func += (lhs: inout StatementArguments, rhs: [FilterValue]) {
        for value in rhs {
            switch value {
            case .text(let text): lhs += [text]
            case .int(let int): lhs += [int]
            case .double(let double): lhs += [double]
            case .bool(let bool): lhs += [bool]
            case .null: lhs += [nil as String?]
            }
        }
    }
}
