import Foundation

/// Email address rules shared by every front-end and backend.
public enum EmailAddress {
    /// The form used for uniqueness: trimmed and lower-cased, so `A@x.io` and `a@X.io` are one account.
    public static func normalize(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// A deliberately plain check (one `@`, a dot in the domain, no spaces, ≤ 254 chars); the mailed
    /// code is the real proof of an address.
    public static func isPlausible(_ email: String) -> Bool {
        let trimmed = normalize(email)
        guard trimmed.count <= 254, !trimmed.contains(where: { $0.isWhitespace || $0.isNewline }) else { return false }
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].count >= 3 else { return false }
        let domain = parts[1]
        return domain.contains(".") && !domain.hasPrefix(".") && !domain.hasSuffix(".")
    }
}
