import Foundation

/// A structured header value such as `text/plain; charset="utf-8"`: the lower-cased value and its
/// parameters (names lower-cased, quotes removed).
struct HeaderParameters: Sendable, Equatable {
    var value: String
    var parameters: [String: String]

    init(_ header: String) {
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

    subscript(name: String) -> String? { parameters[name] }
}
