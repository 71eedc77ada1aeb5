import PocketBaseFilter
import Testing

/// Every kind of mistake is a `FilterError` naming the offending part and its 0-based position.
@Suite struct FilterErrorTests {
    @Test func unknownField() {
        #expect(Fixtures.error(#"passwordHash = "x""#) == #"unknown field "passwordHash" at 0"#)
        #expect(Fixtures.error(#"email = "x" && tokenKey != """#) == #"unknown field "tokenKey" at 15"#)
        #expect(Fixtures.error("age = passwordHash") == #"unknown field "passwordHash" at 6"#)
    }

    @Test func errorCarriesThePosition() throws {
        #expect(throws: FilterError(#"unknown field "nope""#, at: 10)) {
            try Fixtures.compile("age = 1 ||nope = 2")
        }
    }

    @Test func unexpectedCloseParen() {
        #expect(Fixtures.error(#"(email = "x"))"#) == #"unexpected ")" at 13 (expected "&&", "||" or the end)"#)
        #expect(Fixtures.error(")") == #"unexpected ")" at 0 (expected a field or a value)"#)
    }

    @Test func unclosedParen() {
        #expect(
            Fixtures.error(#"(email = "x""#) == #"unexpected end of filter at 12 (expected ")" to close "(" at 0)"#)
    }

    @Test func emptyParentheses() {
        #expect(Fixtures.error("age = 1 && ()") == "empty parentheses at 11")
    }

    @Test func unterminatedString() {
        #expect(Fixtures.error(#"email = "abc"#) == "unterminated string at 8")
        #expect(Fixtures.error(#"email = 'abc\'"#) == "unterminated string at 8")
        #expect(Fixtures.error(#"name = "x" || email = 'y"#) == "unterminated string at 22")
    }

    @Test func missingOperand() {
        #expect(Fixtures.error("email = ") == "unexpected end of filter at 8 (expected a field or a value)")
        #expect(Fixtures.error(#"= "x""#) == #"unexpected "=" at 0 (expected a field or a value)"#)
        #expect(Fixtures.error("age = 1 &&") == "unexpected end of filter at 10 (expected a field or a value)")
        #expect(Fixtures.error("age = 1 || && age = 2") == #"unexpected "&&" at 11 (expected a field or a value)"#)
    }

    @Test func missingOperator() {
        #expect(Fixtures.error("email") == "unexpected end of filter at 5 (expected an operator)")
        #expect(Fixtures.error(#"email "x""#) == #"unexpected ""x"" at 6 (expected an operator)"#)
    }

    @Test func missingJoin() {
        #expect(Fixtures.error(#"email = "x" age = 1"#) == #"unexpected "age" at 12 (expected "&&", "||" or the end)"#)
    }

    @Test func unknownOperators() {
        #expect(Fixtures.error(#"email == "x""#) == #"unknown operator "==" at 6"#)
        #expect(Fixtures.error(#"email =~ "x""#) == #"unknown operator "=~" at 6"#)
        #expect(Fixtures.error("age = 1 & age = 2") == #"unknown operator "&" at 8"#)
        #expect(Fixtures.error("age = 1 ||| age = 2") == #"unknown operator "|||" at 8"#)
        #expect(Fixtures.error("age = 1 AND age = 2") == #"unexpected "AND" at 8 (expected "&&", "||" or the end)"#)
    }

    @Test func unsupportedOperatorNamesIt() {
        #expect(Fixtures.error(#"email ?= "x""#) == #"unsupported operator "?=" at 6"#)
        #expect(Fixtures.error(#"email ? "x""#) == #"unsupported operator "?" at 6"#)
    }

    @Test func invalidNumbers() {
        #expect(Fixtures.error("age = 1.2.3") == #"invalid number "1.2.3" at 6"#)
        #expect(Fixtures.error("age = 1.") == #"invalid number "1." at 6"#)
        #expect(Fixtures.error("age = -x") == #"unexpected character "-" at 6"#)
    }

    @Test func unexpectedCharacters() {
        #expect(Fixtures.error("email = $x") == #"unexpected character "$" at 8"#)
        #expect(Fixtures.error("email = {:name}") == #"unexpected character "{" at 8"#)
        #expect(Fixtures.error("age = 1 / 2") == #"unexpected character "/" at 8"#)
        #expect(Fixtures.error("age = \u{1B}[2J") == #"unexpected character "\u{1B}" at 6"#)
    }

    @Test func invalidIdentifier() {
        #expect(Fixtures.error("email. = 1") == #"invalid identifier "email." at 0"#)
    }

    @Test func unsupportedModifier() {
        #expect(Fixtures.error(#"email:upper = "x""#) == #"unsupported modifier ":upper" in "email:upper" at 0"#)
        #expect(Fixtures.error(#"verified:lower = true"#) == #"unsupported modifier ":lower" in "verified:lower" at 0"#)
    }

    @Test func unsupportedIdentifiers() {
        #expect(
            Fixtures.error(#"@collection.users.email = "x""#)
                == #"unsupported identifier "@collection.users.email" at 0"#)
        #expect(Fixtures.error("@request.query.page = 1") == #"unsupported identifier "@request.query.page" at 0"#)
        #expect(Fixtures.error("created > @yesterday") == #"unsupported identifier "@yesterday" at 10"#)
    }

    @Test func emptyFilter() {
        #expect(Fixtures.error("") == "empty filter")
        #expect(Fixtures.error(" \n\t ") == "empty filter")
        #expect(Fixtures.error("// only a comment") == "empty filter")
    }

    // MARK: Caps

    @Test func lengthCap() throws {
        let padding = String(repeating: " ", count: PocketBaseFilter.maximumLength - 7)
        _ = try Fixtures.compile("age = 1" + padding)
        #expect(Fixtures.error("age = 1 " + padding) == "filter is too long: 3501 characters, at most 3500")
        #expect(
            Fixtures.error(String(repeating: "(", count: 1_000_000))
                == "filter is too long: 1000000 characters, at most 3500")
    }

    @Test func depthCap() throws {
        let depth = PocketBaseFilter.maximumDepth
        let nested = String(repeating: "(", count: depth) + "age = 1" + String(repeating: ")", count: depth)
        #expect(try Fixtures.compile(nested).sql == #""age" = ?"#)
        let tooDeep = "(" + nested + ")"
        #expect(Fixtures.error(tooDeep) == "too deeply nested: more than 32 levels of parentheses at 32")
    }

    @Test func deepNestingWithinTheLengthCapDoesNotOverflow() {
        #expect(
            Fixtures.error(String(repeating: "(", count: 3_400))
                == "too deeply nested: more than 32 levels of parentheses at 32")
        let alternating = String(repeating: "(age = 1 || ", count: 250)
        #expect(Fixtures.error(alternating) == "too deeply nested: more than 32 levels of parentheses at 384")
    }

    @Test func longFlatChainsCompile() throws {
        let chain = Array(repeating: "age = 1", count: 300).joined(separator: " || ")
        let compiled = try Fixtures.compile(chain)
        #expect(compiled.arguments.count == 300)
    }
}
