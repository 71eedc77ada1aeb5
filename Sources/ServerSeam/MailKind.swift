/// What a mail carrying a secret is for, kept with the mail so a test suite can ask for the
/// latest code or link of each kind an address was sent (`GET /_/api/test/codes`).
public enum MailKind: String, Sendable, CaseIterable, Codable {
    case verification
    case passwordReset = "password_reset"
    case emailChange = "email_change"
    case signInCode = "sign_in_code"
    case magicLink = "magic_link"
}
