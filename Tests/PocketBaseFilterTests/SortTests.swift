import PocketBaseFilter
import Testing

/// PocketBase's `sort=` syntax compiled to ORDER BY terms over the declared fields.
@Suite struct SortTests {
    private let fields = Fixtures.context().fields

    private func sql(_ sort: String) throws -> String {
        try PocketBaseFilter.compileSort(sort, fields: fields).sql
    }

    private func error(_ sort: String) -> String? {
        do throws(FilterError) {
            _ = try PocketBaseFilter.compileSort(sort, fields: fields)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func descendingAndAscending() throws {
        let sort = try PocketBaseFilter.compileSort("-created,email", fields: fields)
        #expect(sort.sql == #""created" DESC, "email" ASC"#)
        #expect(sort.orderByClause == #"ORDER BY "created" DESC, "email" ASC"#)
        #expect(sort.terms.map(\.descending) == [true, false])
        #expect(sort.terms.map { $0.field?.name } == ["created", "email"])
    }

    @Test func plusIsAscending() throws {
        #expect(try sql("+email") == #""email" ASC"#)
    }

    @Test func whitespaceAroundItemsIsIgnored() throws {
        #expect(try sql(" -created , email ") == #""created" DESC, "email" ASC"#)
    }

    @Test func declaredColumnIsUsed() throws {
        #expect(try sql("-owner") == #""owner_id" DESC"#)
        #expect(try sql("meta") == #"JSON_EXTRACT("meta", '$') ASC"#)
    }

    @Test func emptySortHasNoTerms() throws {
        let sort = try PocketBaseFilter.compileSort("  ", fields: fields)
        #expect(sort.terms.isEmpty)
        #expect(sort.orderByClause == "")
    }

    @Test func randomAndRowid() throws {
        #expect(try sql("@random") == "RANDOM()")
        #expect(try sql("-@random,email") == #"RANDOM(), "email" ASC"#)
        #expect(try sql("-@rowid") == "_rowid_ DESC")
    }

    @Test func unknownFieldIsNamedWithItsPosition() {
        #expect(error("-passwordHash") == #"unknown sort field "passwordHash" at 1"#)
        #expect(error("email, tokenKey") == #"unknown sort field "tokenKey" at 7"#)
        #expect(error(#"email"; DROP TABLE users"#) == #"unknown sort field "email"; DROP TABLE users" at 0"#)
    }

    @Test func emptyItemIsAnError() {
        #expect(error("email,,created") == "empty sort field at 6")
        #expect(error("email,") == "empty sort field at 6")
        #expect(error("-") == "empty sort field at 1")
    }

    @Test func lengthCap() {
        #expect(error(String(repeating: "a,", count: 2_000)) == "sort is too long: 4000 characters, at most 3500")
    }
}
