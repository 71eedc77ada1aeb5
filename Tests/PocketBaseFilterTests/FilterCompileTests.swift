import Foundation
import PocketBaseFilter
import Testing

/// The SQL and arguments each piece of PocketBase's filter syntax compiles to.
@Suite struct FilterCompileTests {
    private func expectCompiles(
        _ filter: String, to sql: String, _ arguments: [FilterValue] = [], authID: String? = nil,
        auth: [String: FilterValue] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let compiled = try Fixtures.compile(filter, authID: authID, auth: auth)
        #expect(compiled.sql == sql, sourceLocation: sourceLocation)
        #expect(compiled.arguments == arguments, sourceLocation: sourceLocation)
    }

    // MARK: Operators

    @Test func equal() throws {
        try expectCompiles(#"email = "a@b.c""#, to: #""email" = ?"#, [.text("a@b.c")])
    }

    @Test func notEqualIsIsNotSoNullCountsAsDifferent() throws {
        try expectCompiles(#"email != "a@b.c""#, to: #""email" IS NOT ?"#, [.text("a@b.c")])
    }

    @Test func greater() throws {
        try expectCompiles("age > 5", to: #""age" > ?"#, [.int(5)])
    }

    @Test func greaterOrEqualWithDecimal() throws {
        try expectCompiles("age >= 5.5", to: #""age" >= ?"#, [.double(5.5)])
    }

    @Test func lessWithNegativeNumber() throws {
        try expectCompiles("age < -3", to: #""age" < ?"#, [.int(-3)])
    }

    @Test func lessOrEqual() throws {
        try expectCompiles("age <= 0", to: #""age" <= ?"#, [.int(0)])
    }

    @Test func likeWrapsAsContains() throws {
        try expectCompiles(#"name ~ "jo""#, to: #""name" LIKE ? ESCAPE '\'"#, [.text("%jo%")])
    }

    @Test func notLike() throws {
        try expectCompiles(#"name !~ "jo""#, to: #""name" NOT LIKE ? ESCAPE '\'"#, [.text("%jo%")])
    }

    @Test func likeWithUserPercentIsUsedAsTyped() throws {
        try expectCompiles(#"name ~ "jo%""#, to: #""name" LIKE ? ESCAPE '\'"#, [.text("jo%")])
        try expectCompiles(#"name ~ "j_%""#, to: #""name" LIKE ? ESCAPE '\'"#, [.text("j_%")])
    }

    @Test func likeWithoutPercentEscapesUnderscoreAndBackslash() throws {
        try expectCompiles(#"name ~ "a_b""#, to: #""name" LIKE ? ESCAPE '\'"#, [.text(#"%a\_b%"#)])
        try expectCompiles(#"name ~ "a\b""#, to: #""name" LIKE ? ESCAPE '\'"#, [.text(#"%a\\b%"#)])
    }

    @Test func likeKeepsUserEscapedPercentLiteral() throws {
        try expectCompiles(#"name ~ "50\%""#, to: #""name" LIKE ? ESCAPE '\'"#, [.text(#"%50\%%"#)])
    }

    @Test func likeWithNumberUsesItsDigits() throws {
        try expectCompiles("name ~ 42", to: #""name" LIKE ? ESCAPE '\'"#, [.text("%42%")])
    }

    @Test func likeAgainstFieldWrapsTheColumn() throws {
        try expectCompiles("name ~ email", to: #""name" LIKE ('%' || "email" || '%') ESCAPE '\'"#)
    }

    @Test func anyOfOperatorsAreRefused() {
        for op in ["?=", "?!=", "?>", "?>=", "?<", "?<=", "?~", "?!~"] {
            #expect(Fixtures.error("email \(op) \"x\"") == "unsupported operator \"\(op)\" at 6")
        }
    }

    // MARK: Null and empty, as PocketBase

    @Test func equalNullMatchesEmptyAndNull() throws {
        try expectCompiles("email = null", to: #"("email" = '' OR "email" IS NULL)"#)
        try expectCompiles(#"email = """#, to: #"("email" = '' OR "email" IS NULL)"#)
        try expectCompiles("email = ''", to: #"("email" = '' OR "email" IS NULL)"#)
    }

    @Test func notEqualNullExcludesEmptyAndNull() throws {
        try expectCompiles("email != null", to: #"("email" IS NOT '' AND "email" IS NOT NULL)"#)
    }

    @Test func nullOnTheLeft() throws {
        try expectCompiles("null = email", to: #"('' = "email" OR "email" IS NULL)"#)
    }

    @Test func bothSidesEmpty() throws {
        try expectCompiles(#"null = """#, to: "'' = ''")
        try expectCompiles(#"null != """#, to: "'' IS NOT ''")
    }

    @Test func orderingAgainstNullIsSQLNull() throws {
        try expectCompiles("age > null", to: #""age" > NULL"#)
    }

    @Test func likeAgainstNullMatchesNothing() throws {
        try expectCompiles("name ~ null", to: #""name" LIKE ('%' || NULL || '%') ESCAPE '\'"#)
    }

    @Test func jsonFieldsCompareWithIsAndNoFolding() throws {
        try expectCompiles("meta = null", to: #"JSON_EXTRACT("meta", '$') IS NULL"#)
        try expectCompiles(#"meta != "x""#, to: #"JSON_EXTRACT("meta", '$') IS NOT ?"#, [.text("x")])
    }

    // MARK: Operands

    @Test func fieldAgainstField() throws {
        try expectCompiles("created > updated", to: #""created" > "updated""#)
        try expectCompiles("created = updated", to: #"COALESCE("created", '') = COALESCE("updated", '')"#)
        try expectCompiles("created != updated", to: #"COALESCE("created", '') IS NOT COALESCE("updated", '')"#)
    }

    @Test func declaredColumnNameIsUsed() throws {
        try expectCompiles(#"owner = "u1""#, to: #""owner_id" = ?"#, [.text("u1")])
    }

    @Test func boolsBindAsBools() throws {
        try expectCompiles("verified = true", to: #""verified" = ?"#, [.bool(true)])
        try expectCompiles("verified = FALSE", to: #""verified" = ?"#, [.bool(false)])
    }

    @Test func valueOnTheLeft() throws {
        try expectCompiles(#""x" = email"#, to: #"? = "email""#, [.text("x")])
    }

    @Test func requestAuthIDResolved() throws {
        try expectCompiles("owner = @request.auth.id", to: #""owner_id" = ?"#, [.text("u1")], authID: "u1")
    }

    @Test func requestAuthIDForGuestIsEmpty() throws {
        try expectCompiles("owner = @request.auth.id", to: #"("owner_id" = '' OR "owner_id" IS NULL)"#)
        try expectCompiles(#"@request.auth.id != """#, to: "'' IS NOT ''")
        try expectCompiles(#"@request.auth.id = """#, to: "'' = ''")
    }

    @Test func requestAuthFieldsAreTheCallersValues() throws {
        let auth: [String: FilterValue] = ["verified": .bool(true), "email": .text("me@x.io")]
        try expectCompiles(
            "@request.auth.verified = true", to: "? = ?", [.bool(true), .bool(true)], authID: "u1", auth: auth)
        try expectCompiles(
            "email = @request.auth.email", to: #""email" = ?"#, [.text("me@x.io")], authID: "u1", auth: auth)
    }

    @Test func missingRequestAuthFieldIsNull() throws {
        try expectCompiles(#"@request.auth.role = "admin""#, to: "'' = ?", [.text("admin")], authID: "u1")
    }

    @Test func requestAuthFieldsAreNullForGuestsWhateverTheCallerPassed() throws {
        try expectCompiles(
            #"@request.auth.email = "me@x.io""#, to: "'' = ?", [.text("me@x.io")], auth: ["email": .text("me@x.io")])
    }

    @Test func nowIsTheContextInstantInStoredFormat() throws {
        try expectCompiles("created < @now", to: #""created" < ?"#, [.text("2024-02-29 13:45:07.125Z")])
    }

    @Test func dateMacros() throws {
        let expected: [(String, FilterValue)] = [
            ("@todayStart", .text("2024-02-29 00:00:00.000Z")),
            ("@todayEnd", .text("2024-02-29 23:59:59.999Z")),
            ("@monthStart", .text("2024-02-01 00:00:00.000Z")),
            ("@monthEnd", .text("2024-02-29 23:59:59.999Z")),
            ("@yearStart", .text("2024-01-01 00:00:00.000Z")),
            ("@yearEnd", .text("2024-12-31 23:59:59.999Z")),
            ("@second", .int(7)), ("@minute", .int(45)), ("@hour", .int(13)), ("@day", .int(29)),
            ("@weekday", .int(4)), ("@month", .int(2)), ("@year", .int(2024))
        ]
        for (macro, value) in expected {
            try expectCompiles("age = \(macro)", to: #""age" = ?"#, [value])
        }
    }

    @Test func nowBeforeTheEpochAndAtACenturyBoundary() throws {
        let before = FilterContext(fields: Fixtures.fields, now: Date(timeIntervalSince1970: -0.5))
        let beforeNow = try PocketBaseFilter.compile("created = @now", context: before).arguments
        #expect(beforeNow == [.text("1969-12-31 23:59:59.500Z")])
        let march = FilterContext(fields: Fixtures.fields, now: Date(timeIntervalSince1970: 951_868_800))
        #expect(try PocketBaseFilter.compile("age = @weekday", context: march).arguments == [.int(3)])
        let marchNow = try PocketBaseFilter.compile("created = @now", context: march).arguments
        #expect(marchNow == [.text("2000-03-01 00:00:00.000Z")])
    }

    @Test func declaredFieldWinsOverLiteral() throws {
        let context = FilterContext(fields: [FilterField("true", column: "t"), FilterField("a")])
        let sql = try PocketBaseFilter.compile("a = true", context: context).sql
        #expect(sql == #"COALESCE("a", '') = COALESCE("t", '')"#)
    }

    // MARK: Strings

    @Test func singleAndDoubleQuotes() throws {
        try expectCompiles("name = 'Ann'", to: #""name" = ?"#, [.text("Ann")])
        try expectCompiles(#"name = "it's""#, to: #""name" = ?"#, [.text("it's")])
        try expectCompiles(#"name = 'say "hi"'"#, to: #""name" = ?"#, [.text(#"say "hi""#)])
    }

    @Test func escapedQuotes() throws {
        try expectCompiles(#"name = 'it\'s'"#, to: #""name" = ?"#, [.text("it's")])
        try expectCompiles(#"name = "say \"hi\"""#, to: #""name" = ?"#, [.text(#"say "hi""#)])
    }

    @Test func otherBackslashesAreKeptAsTyped() throws {
        try expectCompiles(#"name = "a\\b\n""#, to: #""name" = ?"#, [.text(#"a\\b\n"#)])
        try expectCompiles(#"name = 'a\"b'"#, to: #""name" = ?"#, [.text(#"a\"b"#)])
    }

    @Test func unicodeAndOperatorsInsideStrings() throws {
        try expectCompiles(#"name = "Zoë && (x || y) ~ 🙂""#, to: #""name" = ?"#, [.text("Zoë && (x || y) ~ 🙂")])
    }

    @Test func emptyStringIsEmpty() throws {
        try expectCompiles(#"name != """#, to: #"("name" IS NOT '' AND "name" IS NOT NULL)"#)
    }

    // MARK: Grouping

    @Test func andBindsTighterThanOr() throws {
        try expectCompiles(
            "age = 1 || age = 2 && age = 3", to: #"("age" = ? OR ("age" = ? AND "age" = ?))"#,
            [.int(1), .int(2), .int(3)])
        try expectCompiles(
            "age = 1 && age = 2 || age = 3", to: #"(("age" = ? AND "age" = ?) OR "age" = ?)"#,
            [.int(1), .int(2), .int(3)])
    }

    @Test func parenthesesOverridePrecedence() throws {
        try expectCompiles(
            "(age = 1 || age = 2) && age = 3", to: #"(("age" = ? OR "age" = ?) AND "age" = ?)"#,
            [.int(1), .int(2), .int(3)])
    }

    @Test func redundantParenthesesDisappear() throws {
        try expectCompiles("((age = 1))", to: #""age" = ?"#, [.int(1)])
    }

    @Test func chainsAreFlat() throws {
        try expectCompiles(
            "age = 1 || age = 2 || age = 3", to: #"("age" = ? OR "age" = ? OR "age" = ?)"#,
            [.int(1), .int(2), .int(3)])
    }

    @Test func argumentsFollowPlaceholderOrder() throws {
        let compiled = try Fixtures.compile(#"(name ~ "a" || email = "b") && age > 3 && "c" != id"#)
        #expect(compiled.arguments == [.text("%a%"), .text("b"), .int(3), .text("c")])
        #expect(compiled.sql.filter { $0 == "?" }.count == compiled.arguments.count)
    }

    @Test func anyWhitespaceOrNone() throws {
        try expectCompiles(#"age=1&&name="x""#, to: #"("age" = ? AND "name" = ?)"#, [.int(1), .text("x")])
        try expectCompiles("\n\tage\r\n>=\t1  ", to: #""age" >= ?"#, [.int(1)])
    }

    @Test func commentsAreIgnored() throws {
        try expectCompiles("age = 1 // the first\n|| age = 2", to: #"("age" = ? OR "age" = ?)"#, [.int(1), .int(2)])
    }

    @Test func largeIntegersFallBackToDouble() throws {
        try expectCompiles("age > 99999999999999999999", to: #""age" > ?"#, [.double(1e20)])
    }

    // MARK: Injection

    @Test func quoteInjectionIsOneParameter() throws {
        let compiled = try Fixtures.compile(#"email = "x' OR 1=1 --""#)
        #expect(compiled.sql == #""email" = ?"#)
        #expect(compiled.arguments == [.text("x' OR 1=1 --")])
    }

    @Test func noFilterTextReachesTheSQL() throws {
        let attempts = [
            #"email = "'; DROP TABLE users; --""#,
            #"name ~ "%' OR '1'='1""#,
            #"email != '" OR ""="'"#,
            #"owner = "u1\" OR 1=1 --""#
        ]
        for attempt in attempts {
            let compiled = try Fixtures.compile(attempt)
            #expect(!compiled.sql.contains("DROP") && !compiled.sql.contains("1=1") && !compiled.sql.contains("'1'"))
            #expect(compiled.arguments.count == 1)
        }
    }

    @Test func injectedFieldNamesAreUnknownFields() {
        #expect(Fixtures.error("email;DROP = 1") == #"unexpected character ";" at 5"#)
        #expect(Fixtures.error(#"sqlite_master.sql = "x""#) == #"unknown field "sqlite_master.sql" at 0"#)
    }
}
