import Foundation

/// The checks on an app's hosted-page branding, shared by the admin API, the console's form and the
/// config file: a logo, terms and privacy page must be `https:` (or `http:` on this machine, for
/// apps in development); an accent colour is `#rrggbb`.
public enum AppBranding {
    /// The colour as stored (`#rrggbb`, lower case), or nil when it is not one.
    public static func normalizedColor(_ text: String) -> String? {
        let lower = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard lower.count == 7, lower.first == "#", lower.dropFirst().allSatisfy(\.isHexDigit) else { return nil }
        return lower
    }

    /// Why `text` cannot be a logo or page link, or nil when it can.
    public static func linkProblem(_ text: String) -> String? {
        guard text.count <= 2048, let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            let host = url.host, !host.isEmpty, url.user == nil, url.password == nil
        else { return "Give a full https:// address." }
        switch scheme {
        case "https": return nil
        case "http" where ["localhost", "127.0.0.1", "[::1]", "::1"].contains(host.lowercased()): return nil
        default: return "Use https:// (http:// only on localhost)."
        }
    }

    /// An optional field as stored: nil for absent or blank.
    static func given(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}
