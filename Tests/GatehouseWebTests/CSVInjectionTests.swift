import Foundation
import HTTPTestClient
import TestScope
import Testing

/// Issue 9, item 5: an exported CSV opened in a spreadsheet must not run anything a user typed.
@Suite(.stopsWhatItStarts) struct CSVInjectionTests {
    static let dangerous = ["=HYPERLINK(\"http://evil.example\",\"Click\")", "+1+1", "-2+3", "@SUM(1)", "\tTab", "\rReturn"]

    @Test func exportedFieldsNeverStartAFormulaAndComeBackOnImport() async throws {
        let gatehouse = try await TestGatehouse()
        let admin = TestUserAPITests.AdminCaller(port: gatehouse.port, token: try await gatehouse.adminToken())
        let rows: [[String: Any]] =
            Self.dangerous.enumerated().map { index, name in
                ["email": "formula\(index)@example.com", "password": "quiet-otter-123", "name": name, "tags": ["csv"]]
            } + [["email": "=1+1@example.com", "password": "quiet-otter-123", "name": "Plain", "tags": ["csv"]]]
        let imported = try await admin.send("POST", "/_/api/users/import", json: rows)
        #expect(imported.status == 201, "\(imported.text)")

        let export = try await admin.send("GET", "/_/api/users/export?format=csv&tag=csv")
        #expect(export.status == 200)
        let fields = try CSVFields.parse(export.text)
        #expect(fields.count == rows.count + 1, "header and one line per user")
        for field in fields.joined() {
            #expect(!["=", "+", "-", "@", "\t", "\r"].contains(field.first.map(String.init) ?? ""), "live formula: \(field)")
        }
        #expect(fields.joined().contains("'=HYPERLINK(\"http://evil.example\",\"Click\")"))
        #expect(fields.joined().contains("'=1+1@example.com"))

        // The file comes back unchanged: the leading quote export added is dropped on import.
        #expect(try admin.object(try await admin.send("DELETE", "/_/api/users?tag=csv"))["deleted"] as? Int == rows.count)
        let again = try await admin.send("POST", "/_/api/users/import", raw: export.body, contentType: "text/csv")
        #expect(again.status == 201, "\(again.text)")
        let list = try admin.object(try await admin.send("GET", "/_/api/users?tag=csv&limit=50"))
        let items = try #require(list["items"] as? [[String: Any]])
        let names = Set(items.compactMap { ($0["profile"] as? [String: Any])?["name"] as? String })
        #expect(names == Set(Self.dangerous + ["Plain"]))
        #expect(items.contains { $0["email"] as? String == "=1+1@example.com" })
        await gatehouse.stop()
    }
}

/// A small RFC 4180 reader for the test's side, independent of the server's own parser.
enum CSVFields {
    struct Broken: Error {}

    static func parse(_ text: String) throws -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var scalars = Array(text.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "\"":
                while true {
                    guard let next = scalars.popFirst() else { throw Broken() }
                    if next == "\"" {
                        if scalars.first == "\"" {
                            scalars.removeFirst()
                            field.unicodeScalars.append("\"")
                        } else {
                            break
                        }
                    } else {
                        field.unicodeScalars.append(next)
                    }
                }
            case ",":
                record.append(field)
                field = ""
            case "\r" where scalars.first == "\n":
                scalars.removeFirst()
                record.append(field)
                records.append(record)
                record = []
                field = ""
            default:
                field.unicodeScalars.append(scalar)
            }
        }
        if !field.isEmpty || !record.isEmpty { records.append(record + [field]) }
        return records
    }
}
