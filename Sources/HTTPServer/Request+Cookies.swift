import Foundation

extension Request {
    /// Parses `Cookie: a=1; b=2` lines (RFC 6265 §5.4); malformed pairs are skipped and the
    /// first occurrence of a name wins, so an injected later duplicate cannot shadow it.
    static func parseCookies(_ lines: [String]) -> [String: String] {
        var cookies: [String: String] = [:]
        for line in lines {
            for pair in line.split(separator: ";") {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
                var value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else { continue }
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast())
                }
                if cookies[name] == nil {
                    cookies[name] = value
                }
            }
        }
        return cookies
    }
}
