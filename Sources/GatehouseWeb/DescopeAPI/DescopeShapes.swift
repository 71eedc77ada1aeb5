import AuthCore
import Foundation

/// An account as Descope's API writes it (DescopeKit's `UserResponse`, which requires every key
/// but the names, addresses, picture and custom attributes). Gatehouse has no phones, roles,
/// tenants, SSO or passkeys: those are empty, as for a Descope user without them. Built as a
/// `JSONValue` and written directly: every sign-in, `refresh` and `me` answers one, and
/// `JSONEncoder` cost more than the rest of a `refresh`.
struct DescopeUser {
    let json: JSONValue

    /// `password`: whether the account has a password, as far as this answer knows (this session
    /// began with one): Gatehouse's seam does not say.
    init(_ user: User, password: Bool = false, totp: Bool = false, providers: [String] = []) {
        var fields: [String: JSONValue] = [
            "userId": .string(user.id.rawValue), "loginIds": .array([.string(user.email)]),
            "status": .string(user.disabled ? "disabled" : "enabled"),
            "createdTime": .number(Double(Int(user.createdAt.timeIntervalSince1970))), "email": .string(user.email),
            "verifiedEmail": .bool(user.emailVerified), "phone": "", "verifiedPhone": .bool(false), "roleNames": .array([]),
            "userTenants": .array([]), "ssoAppIds": .array([]), "webauthn": .bool(false), "password": .bool(password),
            "TOTP": .bool(totp),
            "OAuth": .object(Dictionary(providers.map { ($0, JSONValue.bool(true)) }, uniquingKeysWith: { first, _ in first })),
            "SAML": .bool(false), "SCIM": .bool(false), "test": .bool(false),
            // The profile's fields beyond the name and picture.
            "customAttributes": .object(user.profile.fields.filter { $0.key != "name" && $0.key != "avatar_url" })
        ]
        if let name = user.profile.name { fields["name"] = .string(name) }
        if let picture = user.profile.avatarURL { fields["picture"] = .string(picture) }
        json = .object(fields)
    }
}

/// Descope's `JWTResponse`: both JWTs in the body (the SDKs read the `DS`/`DSR` cookies only when
/// these are empty), the user, and `firstSeen`, which DescopeKit requires on every answer, refresh
/// included. The cookie fields tell a web app how to keep the JWTs.
struct JWTResponse {
    var sessionJwt: String
    var refreshJwt: String
    var cookieMaxAge: Int
    var cookieExpiration: Int
    var user: DescopeUser
    var firstSeen: Bool

    var json: JSONValue {
        .object([
            "sessionJwt": .string(sessionJwt), "refreshJwt": .string(refreshJwt), "cookieDomain": "", "cookiePath": "/",
            "cookieMaxAge": .number(Double(cookieMaxAge)), "cookieExpiration": .number(Double(cookieExpiration)),
            "user": user.json, "firstSeen": .bool(firstSeen)
        ])
    }
}

/// Where a code or link went, masked as Descope answers (`{"maskedEmail": "a***@example.com"}`).
struct MaskedEmail: Encodable {
    var maskedEmail: String

    init(_ email: String) {
        let parts = email.split(separator: "@", maxSplits: 1)
        guard parts.count == 2, let first = parts[0].first else {
            maskedEmail = "***"
            return
        }
        maskedEmail = "\(first)***@\(parts[1])"
    }
}

/// A TOTP key for an authenticator app (`{provisioningURL, image, key}`, the image a base64 PNG).
struct TOTPKey: Encodable {
    var provisioningURL: String
    var image: String
    var key: String
}

/// `GET auth/password/policy`: the one password policy, in the five fields Descope's SDKs require.
struct PasswordPolicyBody: Encodable {
    var minLength = PasswordPolicy.minimumLength
    var maxLength = PasswordPolicy.maximumLength
    var lowercase = false
    var uppercase = false
    var number = false
    var nonAlphanumeric = false
}
