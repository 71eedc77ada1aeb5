import AuthCore
import Foundation
import ServerSeam

/// An import file read into accounts: CSV with a header row (`email,password,name,verified,
/// passwordHash`, any order, more columns ignored) or JSON (an array of objects, or an object whose
/// `items` is one: Gatehouse's export and PocketBase's list shape). Rows are numbered as a person
/// finds them: the CSV line (header is row 1), the JSON array position from 1.
public struct UserImportFile {
    public enum Format: String {
        case json, csv
    }

    /// A file that cannot be read at all (as opposed to bad rows).
    public struct Unreadable: Error {
        public var message: String
    }

    /// One account and the tags to give it (kept by Gatehouse, not the backend).
    public struct Row {
        var user: ImportedUser
        var tags: [String]

        public init(user: ImportedUser, tags: [String]) { (self.user, self.tags) = (user, tags) }
    }

    public var rows: [Row] = []
    /// Values that could not be read, row by row (invalid addresses etc. are found later).
    var problems: [ImportProblem] = []

    static let maximumRows = UserSeed.maximumCount

    /// `format` nil guesses from the name and the first character.
    public init(bytes: [UInt8], filename: String = "", format: Format?) throws(Unreadable) {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Unreadable(message: "The file is not UTF-8 text.")
        }
        let body = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        let trimmed = body.drop { $0.isWhitespace }
        let guessed: Format =
            filename.lowercased().hasSuffix(".csv")
            ? .csv
            : filename.lowercased().hasSuffix(".json") || trimmed.first == "[" || trimmed.first == "{" ? .json : .csv
        switch format ?? guessed {
        case .json: try readJSON(body)
        case .csv: try readCSV(body)
        }
        guard !rows.isEmpty || !problems.isEmpty else { throw Unreadable(message: "The file has no users in it.") }
        guard rows.count + problems.count <= Self.maximumRows else {
            throw Unreadable(message: "Import at most \(CountText.grouped(Self.maximumRows)) users at a time.")
        }
    }

    public var users: [ImportedUser] { rows.map(\.user) }

    private mutating func readCSV(_ text: String) throws(Unreadable) {
        let records: [[String]]
        do {
            records = try CSV.parse(text)
        } catch {
            throw Unreadable(message: "The CSV cannot be read: row \(error.record) has \(error.reason).")
        }
        guard let header = records.first?.map({ $0.trimmingCharacters(in: .whitespaces) }),
            let emailColumn = header.firstIndex(of: "email")
        else {
            throw Unreadable(
                message: "The CSV needs a header row with an email column (email,password,name,verified,passwordHash).")
        }
        func column(_ name: String) -> Int? { header.firstIndex(of: name) }
        for (index, record) in records.enumerated().dropFirst() {
            let number = index + 1
            func value(_ column: Int?) -> String? {
                guard let column, column < record.count else { return nil }
                let text = CSV.restoringSpreadsheetSafe(record[column])
                return text.isEmpty ? nil : text
            }
            guard record.count == header.count else {
                problems.append(
                    ImportProblem(row: number, message: "Has \(record.count) fields; the header has \(header.count)."))
                continue
            }
            var profile: [String: JSONValue] = [:]
            if let name = value(column("name")) { profile["name"] = .string(name) }
            guard let verified = Self.flag(value(column("verified")) ?? value(column("emailVerified"))) else {
                problems.append(ImportProblem(row: number, message: "verified must be true or false."))
                continue
            }
            let tags = (value(column("tags")) ?? "").split(whereSeparator: { $0 == " " || $0 == ";" }).map(String.init)
            rows.append(
                Row(
                    user: ImportedUser(
                        row: number, email: value(emailColumn) ?? "", verified: verified,
                        password: value(column("password")), passwordHash: value(column("passwordHash")),
                        profile: Profile(profile)),
                    tags: tags))
        }
    }

    private mutating func readJSON(_ text: String) throws(Unreadable) {
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        } catch {
            throw Unreadable(message: "The JSON cannot be read; check it is an array of user objects.")
        }
        let items: [JSONValue]
        switch document {
        case .array(let list): items = list
        case .object(let object):
            guard case .array(let list)? = object["items"] else { fallthrough }
            items = list
        default:
            throw Unreadable(message: "The JSON must be an array of users, or an object with an items array.")
        }
        for (index, item) in items.enumerated() {
            let number = index + 1
            guard case .object(let object) = item else {
                problems.append(ImportProblem(row: number, message: "Is not an object."))
                continue
            }
            var profile: [String: JSONValue] = [:]
            if case .object(let fields)? = object["profile"] { profile = fields }
            if let name = object["name"]?.stringValue { profile["name"] = .string(name) }
            let verifiedValue = object["verified"] ?? object["emailVerified"]
            var verified = false
            switch verifiedValue {
            case nil, .null?: break
            case .bool(let flag)?: verified = flag
            default:
                problems.append(ImportProblem(row: number, message: "verified must be true or false."))
                continue
            }
            var tags: [String] = []
            if case .array(let list)? = object["tags"] { tags = list.compactMap(\.stringValue) }
            rows.append(
                Row(
                    user: ImportedUser(
                        row: number, email: object["email"]?.stringValue ?? "", verified: verified,
                        password: object["password"]?.stringValue,
                        passwordHash: object["passwordHash"]?.stringValue, profile: Profile(profile)),
                    tags: tags))
        }
    }

    /// true/false, yes/no, 1/0 in any case; empty is false; anything else nil.
    static func flag(_ text: String?) -> Bool? {
        switch text?.trimmingCharacters(in: .whitespaces).lowercased() ?? "" {
        case "", "false", "no", "0": return false
        case "true", "yes", "1": return true
        default: return nil
        }
    }
}
