import AuthCore
import Foundation

/// An account as Descope's API writes it (DescopeKit's `UserResponse`, which requires every key
/// but the names, addresses, picture and custom attributes). Gatehouse has no phones, roles,
/// tenants, SSO or passkeys: those are empty, as for a Descope user without them.
struct DescopeUser: Encodable {
    var userId: String
    var loginIds: [String]
    var status: String
    var createdTime: Int
    var email: String
    var verifiedEmail: Bool
    var phone = ""
    var verifiedPhone = false
    var name: String?
    var givenName: String?
    var familyName: String?
    var middleName: String?
    var picture: String?
    var roleNames: [String] = []
    var userTenants: [String] = []
    var ssoAppIds: [String] = []
    var webauthn = false
    /// Whether the account has a password, as far as this answer knows (this session began with
    /// one): Gatehouse's seam does not say.
    var password: Bool
    var TOTP: Bool
    var OAuth: [String: Bool]
    var SAML = false
    var SCIM = false
    var test = false
    /// The profile's fields beyond the name and picture.
    var customAttributes: [String: JSONValue]

    init(_ user: User, password: Bool = false, totp: Bool = false, providers: [String] = []) {
        userId = user.id.rawValue
        loginIds = [user.email]
        status = user.disabled ? "disabled" : "enabled"
        createdTime = Int(user.createdAt.timeIntervalSince1970)
        email = user.email
        verifiedEmail = user.emailVerified
        name = user.profile.name
        picture = user.profile.avatarURL
        self.password = password
        TOTP = totp
        OAuth = Dictionary(providers.map { ($0, true) }, uniquingKeysWith: { first, _ in first })
        customAttributes = user.profile.fields.filter { $0.key != "name" && $0.key != "avatar_url" }
    }
}

/// Descope's `JWTResponse`: both JWTs in the body (the SDKs read the `DS`/`DSR` cookies only when
/// these are empty), the user, and `firstSeen`, which DescopeKit requires on every answer, refresh
/// included. The cookie fields tell a web app how to keep the JWTs.
struct JWTResponse: Encodable {
    var sessionJwt: String
    var refreshJwt: String
    var cookieDomain = ""
    var cookiePath = "/"
    var cookieMaxAge: Int
    var cookieExpiration: Int
    var user: DescopeUser
    var firstSeen: Bool
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
