import Foundation

/// Builds and checks URLs that Gatehouse puts in redirects.
enum URLQuery {
    private static let valueAllowed: CharacterSet = {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return allowed
    }()

    /// `path?k=v&…` with every value percent-encoded.
    static func path(_ path: String, _ items: [(String, String)]) -> String {
        guard !items.isEmpty else { return path }
        let query = items.map { key, value in
            "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: valueAllowed) ?? "")"
        }
        return path + "?" + query.joined(separator: "&")
    }

    /// A redirect target typed by a visitor, kept only when it stays on this site: one leading `/`,
    /// no `//` or `/\` (protocol-relative), no control characters. Anything else becomes `fallback`.
    static func localRedirect(_ candidate: String?, fallback: String) -> String {
        guard let candidate, candidate.hasPrefix("/"), !candidate.hasPrefix("//"), !candidate.hasPrefix("/\\"),
            !candidate.contains("\\"),
            !candidate.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }),
            candidate.count <= 2048
        else { return fallback }
        return candidate
    }
}
