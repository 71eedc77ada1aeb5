import Foundation

/// A structured header value such as `text/plain; charset="utf-8"` or
/// `form-data; name="file"; filename="a;b.csv"`: the lower-cased value and its parameters (names
/// lower-cased, quotes and backslash escapes removed, the first of a repeated name kept). A `;`
/// inside quotes does not end a parameter (RFC 9110 §5.6.6, RFC 2045 §5.1). The one parser the HTTP
/// server (Content-Type, Content-Disposition of uploads) and the mail catcher (MIME parts) share.
public struct HeaderParameters: Sendable, Equatable {
    public var value: String
    public var parameters: [String: String]

    public init(_ header: String) {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in header {
            if escaped {
                current.append(character)
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ";" && !quoted {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        value = fields[0].trimmingCharacters(in: .whitespaces).lowercased()
        var parameters: [String: String] = [:]
        for field in fields.dropFirst() {
            guard let equals = field.firstIndex(of: "=") else { continue }
            let name = field[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            if parameters[name] == nil {
                parameters[name] = field[field.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            }
        }
        self.parameters = parameters
    }

    /// The parameter called `name`, whatever its letter case.
    public subscript(name: String) -> String? { parameters[name.lowercased()] }
}
