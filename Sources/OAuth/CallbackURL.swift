import Foundation

/// Callback URLs of registered apps. Registration accepts only absolute URLs without user info,
/// fragment, whitespace or control characters, and never `javascript:`, `data:`, `file:` or
/// `vbscript:`; at sign-in a requested callback is used only when it equals a registered one
/// byte for byte (no prefix, host-suffix or normalised matching — OAuth 2.0 Security BCP §4.1.3).
public enum CallbackURL {
    private static let forbiddenSchemes: Set<String> = ["javascript", "data", "file", "vbscript", "about", "blob"]

    /// Nil when `candidate` may be registered, else the reason.
    public static func registrationProblem(_ candidate: String) -> String? {
        guard !candidate.isEmpty, candidate.utf8.count <= 2048 else { return "Use 1 to 2048 characters." }
        guard !candidate.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0 == "\\" }) else {
            return "Spaces, control characters and backslashes are not allowed."
        }
        guard let colon = candidate.firstIndex(of: ":") else {
            return "Use an absolute URL such as https://app.example/callback."
        }
        let scheme = candidate[..<colon].lowercased()
        guard let first = scheme.first, first.isLetter,
            scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." })
        else {
            return "The URL has no valid scheme."
        }
        guard !forbiddenSchemes.contains(scheme) else { return "The \(scheme): scheme is never allowed." }
        guard candidate[candidate.index(after: colon)...].hasPrefix("//") else {
            return "Use scheme://host/path (for an app: yourapp://auth/callback)."
        }
        guard let components = URLComponents(string: candidate), components.user == nil, components.password == nil,
            components.fragment == nil, let host = components.host, !host.isEmpty
        else {
            return "The URL must have a host and no user info or #fragment."
        }
        if scheme == "http" || scheme == "https" {
            guard !host.contains("@") else { return "The URL must not contain @." }
        }
        return nil
    }

    /// The registered callback `requested` names, compared exactly; nil when none matches.
    public static func match(_ requested: String, in registered: [String]) -> String? {
        guard registrationProblem(requested) == nil else { return nil }
        return registered.first { $0 == requested }
    }

    /// `callback` with query items appended (after any query it already has).
    public static func appending(_ items: [(String, String)], to callback: String) -> String {
        callback + (callback.contains("?") ? "&" : "?") + FormEncoding.encode(items)
    }

    /// The CSP source that lets a form on Gatehouse's page end in a redirect to `callback`.
    public static func cspSource(for callback: String) -> String? {
        guard let components = URLComponents(string: callback), let scheme = components.scheme?.lowercased() else { return nil }
        if scheme == "http" || scheme == "https", let host = components.host {
            return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
        }
        return scheme + ":"
    }
}
