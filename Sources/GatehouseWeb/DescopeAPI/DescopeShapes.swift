import AuthCore
import Foundation

/// An account as Descope's API writes it (DescopeKit's `UserResponse`, which requires every key
/// but the names, addresses, picture and custom attributes). Gatehouse has no phones, roles,
/// tenants, SSO or passkeys: those are empty, as for a Descope user without them. Written
/// directly, field by field in key order: every sign-in, `refresh` and `me` answers one, and
/// `JSONEncoder`, then a sorted dictionary, cost more than the rest of a `refresh`.
struct DescopeUser {
    let user: User
    /// Whether the account has a password and passkeys, as far as this answer knows: the session
    /// began with one (its `amr` has `pwd`, `webauthn`). Reading them costs the hot answers a read.
    let password: Bool
    let webauthn: Bool
    let totp: Bool
    let providers: [String]
    /// Whether the account is a test user (`TestUsers`): set where the answer is about test users
    /// (the management API's test-user routes); the hot session answers do not read the mark.
    let test: Bool

    /// The account as a session that began with `amr` knows it; `totp` where the answer read the
    /// authenticator app's state (else: the session's second step was one).
    init(_ user: User, amr: [String], totp: Bool? = nil, providers: [String] = [], test: Bool = false) {
        self.user = user
        self.test = test
        self.password = amr.contains("pwd")
        self.webauthn = amr.contains("webauthn")
        self.totp = totp ?? amr.contains("totp")
        self.providers = providers
    }

    /// The profile fields written as Descope's own name fields, not as custom attributes.
    static let nameKeys = ["name", "givenName", "middleName", "familyName"]

    /// The user as a JSON object on its own (`me`).
    var serialized: [UInt8] {
        var writer = JSONObjectWriter(capacity: 512)
        write(to: &writer)
        return writer.finished()
    }

    /// The user's fields, in UTF-8 key order (capitals first).
    func write(to object: inout JSONObjectWriter) {
        object.field("OAuth", .object(Dictionary(providers.map { ($0, .bool(true)) }, uniquingKeysWith: { first, _ in first })))
        object.field("SAML", .bool(false))
        object.field("SCIM", .bool(false))
        object.field("TOTP", .bool(totp))
        object.field("createdTime", .number(Double(Int(user.createdAt.timeIntervalSince1970))))
        // The profile's fields beyond the name, its parts and the picture.
        object.field(
            "customAttributes",
            .object(user.profile.fields.filter { !Self.nameKeys.contains($0.key) && $0.key != "avatar_url" }))
        object.field("email", .string(user.email))
        if let part = user.profile.fields["familyName"]?.stringValue { object.field("familyName", .string(part)) }
        if let part = user.profile.fields["givenName"]?.stringValue { object.field("givenName", .string(part)) }
        object.field("loginIds", .array([.string(user.email)]))
        if let part = user.profile.fields["middleName"]?.stringValue { object.field("middleName", .string(part)) }
        if let name = user.profile.name { object.field("name", .string(name)) }
        object.field("password", .bool(password))
        object.field("phone", "")
        if let picture = user.profile.avatarURL { object.field("picture", .string(picture)) }
        object.field("roleNames", .array([]))
        object.field("ssoAppIds", .array([]))
        object.field("status", .string(user.disabled ? "disabled" : "enabled"))
        object.field("test", .bool(test))
        object.field("userId", .string(user.id.rawValue))
        object.field("userTenants", .array([]))
        object.field("verifiedEmail", .bool(user.emailVerified))
        object.field("verifiedPhone", .bool(false))
        object.field("webauthn", .bool(webauthn))
    }
}

/// Descope's `JWTResponse`: both JWTs in the body (the SDKs read the `DS`/`DSR` cookies only when
/// these are empty; `refreshJwt` is left out, as Descope's `omitempty` does, where the answer hands
/// out none), the user, and `firstSeen`, which DescopeKit requires on every answer, refresh
/// included. The cookie fields tell a web app how to keep the JWTs.
struct JWTResponse {
    var sessionJwt: String
    var refreshJwt: String?
    var cookieMaxAge: Int
    var cookieExpiration: Int
    var user: DescopeUser
    var firstSeen: Bool

    /// The answer's JSON, fields in key order.
    var serialized: [UInt8] {
        var object = JSONObjectWriter(capacity: 2048)
        object.field("cookieDomain", "")
        object.field("cookieExpiration", .number(Double(cookieExpiration)))
        object.field("cookieMaxAge", .number(Double(cookieMaxAge)))
        object.field("cookiePath", "/")
        object.field("firstSeen", .bool(firstSeen))
        if let refreshJwt { object.field("refreshJwt", .string(refreshJwt)) }
        object.field("sessionJwt", .string(sessionJwt))
        object.field("user") { user.write(to: &$0) }
        return object.finished()
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
