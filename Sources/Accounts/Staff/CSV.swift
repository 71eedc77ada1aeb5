/// Comma-separated values as RFC 4180 describes them (https://www.rfc-editor.org/rfc/rfc4180):
/// fields may be quoted, a quote inside a quoted field is doubled, quoted fields may hold commas
/// and line breaks; lines end in CRLF or LF.
public enum CSV {
    /// A file that cannot be split into records; `record` is 1-based.
    public struct Malformed: Error, Equatable {
        var record: Int
        var reason: String

        public init(record: Int, reason: String) { (self.record, self.reason) = (record, reason) }
    }

    /// The records of `text`, each a list of fields; a final line break and blank lines are ignored.
    static func parse(_ text: String) throws(Malformed) -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var quoted = false
        var afterQuote = false
        var fieldStarted = false
        var iterator = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil

        func endRecord() {
            record.append(field)
            if !(record.count == 1 && record[0].isEmpty && !fieldStarted) { records.append(record) }
            record = []
            field = ""
            fieldStarted = false
            afterQuote = false
        }

        while let scalar = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if scalar == "\"" {
                    let next = iterator.next()
                    if next == "\"" {
                        field.unicodeScalars.append("\"")
                    } else {
                        quoted = false
                        afterQuote = true
                        pending = next
                    }
                } else {
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case ",":
                record.append(field)
                field = ""
                fieldStarted = true
                afterQuote = false
            case "\r":
                let next = iterator.next()
                if next != "\n" { pending = next }
                endRecord()
            case "\n":
                endRecord()
            case "\"" where field.isEmpty && !afterQuote:
                quoted = true
                fieldStarted = true
            default:
                guard !afterQuote else {
                    throw Malformed(record: records.count + 1, reason: "text after a closing quote")
                }
                guard scalar != "\"" else {
                    throw Malformed(record: records.count + 1, reason: "a quote inside an unquoted field")
                }
                field.unicodeScalars.append(scalar)
                fieldStarted = true
            }
        }
        guard !quoted else { throw Malformed(record: records.count + 1, reason: "a quoted field that never ends") }
        if fieldStarted || !field.isEmpty || !record.isEmpty { endRecord() }
        return records
    }

    /// One record, quoting the fields that need it, ending in CRLF.
    public static func line(_ fields: [String]) -> String {
        fields.map(escaped).joined(separator: ",") + "\r\n"
    }

    /// A field a spreadsheet will show as text, never run as a formula (OWASP, "CSV Injection"):
    /// one that begins with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`.
    public static func spreadsheetSafe(_ field: String) -> String {
        guard let first = field.unicodeScalars.first, formulaStarts.contains(first) else { return field }
        return "'" + field
    }

    /// Undoes `spreadsheetSafe` on import, so an exported file comes back unchanged: a leading `'`
    /// is dropped only where export would have added it.
    static func restoringSpreadsheetSafe(_ field: String) -> String {
        let scalars = field.unicodeScalars
        guard scalars.first == "'", let second = scalars.dropFirst().first, formulaStarts.contains(second) else {
            return field
        }
        return String(scalars.dropFirst())
    }

    private static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]

    static func escaped(_ field: String) -> String {
        // Scalars, not Characters: "\r\n" is one Character and equals neither "\r" nor "\n".
        guard field.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
