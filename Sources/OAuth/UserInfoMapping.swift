import AuthCore

/// Reads the common shapes of OAuth 2.0 user info (OIDC `sub`, GitHub/Discord `id`, X's `data{}`).
/// An email counts as verified only on an explicit `email_verified`/`verified_email`/`verified: true`.
enum UserInfoMapping {
    static func identity(provider: String, info: [String: JSONValue]) -> ExternalIdentity? {
        var info = info
        if case .object(let inner)? = info["data"] { info = inner }
        let subject: String?
        switch info["sub"] ?? info["id"] ?? info["open_id"] {
        case .string(let text)?: subject = text
        case .number(let number)?: subject = String(Int64(number))
        default: subject = nil
        }
        guard let subject, !subject.isEmpty else { return nil }
        let verifiedClaim = info["email_verified"] ?? info["verified_email"] ?? info["verified"]
        let verified: Bool
        switch verifiedClaim {
        case .bool(let flag)?: verified = flag
        case .string(let text)?: verified = text == "true"
        default: verified = false
        }
        let name = info["name"]?.stringValue ?? info["display_name"]?.stringValue ?? info["username"]?.stringValue
        let avatar = info["picture"]?.stringValue ?? info["avatar_url"]?.stringValue
        return ExternalIdentity(
            provider: provider, subject: subject, email: info["email"]?.stringValue,
            emailVerified: verified, name: name, avatarURL: avatar)
    }
}
