import Foundation

/// Helpers for structured header values such as `multipart/form-data; boundary="x"`.
enum HeaderValue {
    /// The value of parameter `name` (case-insensitive) in a `type; a=b; c="d"` header value. A
    /// `;` inside a quoted value (`filename="a;b.csv"`) does not end it.
    static func parameter(_ name: String, in value: String) -> String? {
        for piece in pieces(of: value).dropFirst() {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            let key = piece[..<equals].trimmingCharacters(in: .whitespaces)
            guard key.lowercased() == name.lowercased() else { continue }
            let raw = piece[piece.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            return unquote(raw)
        }
        return nil
    }

    /// `value` split on the `;`s outside quoted strings (RFC 9110 §5.6.6).
    static func pieces(of value: String) -> [Substring] {
        var pieces: [Substring] = []
        var start = value.startIndex
        var quoted = false
        var escaped = false
        for index in value.indices {
            let character = value[index]
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ";" && !quoted {
                pieces.append(value[start..<index])
                start = value.index(after: index)
            }
        }
        pieces.append(value[start...])
        return pieces
    }

    /// Removes surrounding double quotes and backslash escapes (RFC 9110 §5.6.4).
    static func unquote(_ text: String) -> String {
        guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return text }
        var result = ""
        var escaped = false
        for character in text.dropFirst().dropLast() {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}
