import Testing

@testable import Accounts
@testable import GatehouseWeb

/// The RFC 4180 reader and writer behind user import and export.
@Suite struct CSVTests {
    @Test func quotedFieldsHoldCommasQuotesAndLineBreaks() throws {
        let text =
            "email,name\r\na@example.com,\"Doe, Jane\"\r\nb@example.com,\"Say \"\"hi\"\"\"\n\"c@example.com\",\"two\nlines\"\n"
        #expect(
            try CSV.parse(text) == [
                ["email", "name"], ["a@example.com", "Doe, Jane"], ["b@example.com", "Say \"hi\""],
                ["c@example.com", "two\nlines"]
            ])
    }

    @Test func emptyFieldsBlankLinesAndNoFinalNewline() throws {
        #expect(try CSV.parse("a,,c\n\n,\n\"\",x") == [["a", "", "c"], ["", ""], ["", "x"]])
        #expect(try CSV.parse("") == [])
    }

    @Test func malformedQuotingNamesTheRecord() {
        #expect(throws: CSV.Malformed(record: 2, reason: "a quoted field that never ends")) { try CSV.parse("a\n\"open,b\n") }
        #expect(throws: CSV.Malformed(record: 1, reason: "text after a closing quote")) { try CSV.parse("\"a\"b,c\n") }
        #expect(throws: CSV.Malformed(record: 1, reason: "a quote inside an unquoted field")) { try CSV.parse("a\"b\n") }
    }

    @Test func writtenLinesReadBack() throws {
        let fields = ["plain", "with, comma", "with \"quotes\"", "multi\r\nline", ""]
        #expect(CSV.line(fields) == "plain,\"with, comma\",\"with \"\"quotes\"\"\",\"multi\r\nline\",\r\n")
        #expect(try CSV.parse(CSV.line(fields) + CSV.line(fields)) == [fields, fields])
    }

    @Test func importFileFlagsUnreadableValuesByRow() throws {
        let file = try UserImportFile(
            bytes: Array("email,verified\na@example.com,yes\nb@example.com,perhaps\nc@example.com\n".utf8),
            format: nil)
        #expect(file.users.map(\.email) == ["a@example.com"])
        #expect(file.users.first?.verified == true)
        #expect(file.problems.map(\.row) == [3, 4])
    }
}
