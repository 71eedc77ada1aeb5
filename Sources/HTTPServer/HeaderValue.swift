import Foundation

/// Helpers for structured header values such as `multipart/form-data; boundary="x"`.
enum HeaderValue {
    /// The value of parameter `name` (case-insensitive) in a `type; a=b; c="d"` header value.
    static func parameter(_ name: String, in value: String) -> String? {
        for piece in value.split(separator: ";").dropFirst() {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            let key = piece[..<equals].trimmingCharacters(in: .whitespaces)
            guard key.lowercased() == name.lowercased() else { continue }
            let raw = piece[piece.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            return unquote(raw)
        }
        return nil
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
