/// Password rules (OWASP ASVS 5.0 §6.2): 8 to 128 characters, never truncated, any characters.
public enum PasswordPolicy {
    public static let minimumLength = 8
    public static let maximumLength = 128

    /// Human text shown next to the password field.
    public static let summary = "\(minimumLength) to \(maximumLength) characters. Spaces and any symbols are fine."

    /// Nil when the password is acceptable, else a message for the person who typed it.
    public static func problem(with password: String) -> String? {
        if password.count < minimumLength { return "Use at least \(minimumLength) characters." }
        if password.count > maximumLength { return "Use at most \(maximumLength) characters." }
        return nil
    }
}
