extension Request {
    /// Parses `Cookie: a=1; b=2` lines (RFC 6265 §5.4); malformed pairs are skipped and the
    /// first occurrence of a name wins, so an injected later duplicate cannot shadow it. Names and
    /// values lose the spaces and tabs around them (RFC 6265 §5.2) and a value its double quotes.
    /// Read as bytes: every request parses its cookies.
    static func parseCookies(_ lines: [String]) -> [String: String] {
        var cookies: [String: String] = [:]
        for line in lines {
            let bytes = Array(line.utf8)
            var start = 0
            while start <= bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
                if let (name, value) = pair(bytes[start..<end]), cookies[name] == nil {
                    cookies[name] = value
                }
                start = end + 1
            }
        }
        return cookies
    }

    /// `name=value` with its spaces trimmed and the value unquoted; nil without `=` or a name.
    private static func pair(_ bytes: ArraySlice<UInt8>) -> (String, String)? {
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let name = trimmed(bytes[..<equals])
        guard !name.isEmpty else { return nil }
        var value = trimmed(bytes[(equals + 1)...])
        if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
            value = value.dropFirst().dropLast()
        }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return []
        }
        return bytes[first...last]
    }
}
