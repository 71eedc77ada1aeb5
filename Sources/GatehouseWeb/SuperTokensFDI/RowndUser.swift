import Accounts
import AuthCore
import Foundation
import HTTPServer

/// An account as the Rownd SDK reads it from `plugin/rownd/user` (supertokens-rownd's projection):
/// `data` is the Gatehouse profile with the account's id and address (and the Rownd schema's
/// string fields, empty until set), `meta` the app's own meta (`AppUserMeta`) with the account's
/// dates, `auth_level` whether the address is proven (`guest` for a guest account, whose `data`
/// carries the plugin's `anonymous_id`).
struct RowndUser: Sendable {
    /// The Rownd SDK's default schema (`first_name`, …): string fields every app shows, empty until set.
    static let schemaFields = ["first_name", "last_name", "nick_name", "zip_code"]
    /// Fields the account itself owns, which `data` shows and no `PUT` writes (the address changes
    /// by a mailed confirmation instead).
    static let identityFields: Set<String> = ["user_id", "phone_number", "google_id", "apple_id"]

    var user: User
    var meta: [String: JSONValue]
    /// When the session asking signed in.
    var signedInAt: Date
    /// Whether the account is a guest (`GuestSignUp`).
    var guest: Bool

    init(_ signedIn: SignedIn, meta: [String: JSONValue], guest: Bool) {
        (user, self.meta, signedInAt, self.guest) = (signedIn.user, meta, signedIn.signedInAt, guest)
    }

    var authLevel: String { Self.authLevel(of: user, guest: guest) }

    /// The plugin's `auth_level`: `guest`, else whether the address is proven.
    static func authLevel(of user: User, guest: Bool) -> String {
        guest ? "guest" : user.emailVerified ? "verified" : "unverified"
    }

    /// The plugin's `anonymous_id` of a guest account.
    static func anonymousID(of user: User) -> JSONValue { .string("anon_" + user.id.rawValue) }

    var data: [String: JSONValue] {
        var data = user.profile.fields.filter { !Self.identityFields.contains($0.key) && $0.key != "email" }
        for field in Self.schemaFields where data[field] == nil { data[field] = .string("") }
        data["user_id"] = .string(user.id.rawValue)
        data["email"] = .string(user.email)
        if guest { data["anonymous_id"] = Self.anonymousID(of: user) }
        return data
    }

    /// The plugin's user answer: `{status, rownd_user, data, meta, verified_data, state, auth_level, …}`.
    var json: [String: JSONValue] {
        let created = JSONValue.string(Timestamp.iso8601(user.createdAt))
        let signedIn = JSONValue.string(Timestamp.iso8601(signedInAt))
        let dates: [String: JSONValue] = [
            "created": created, "first_sign_in": created, "last_sign_in": signedIn, "last_active": signedIn,
            "first_sign_in_method": guest ? "guest" : "email", "last_sign_in_method": guest ? "guest" : "email"
        ]
        return [
            "status": "OK", "rownd_user": .string(user.id.rawValue), "data": .object(data),
            "meta": .object(meta.merging(dates) { _, date in date }),
            "verified_data": .object(user.emailVerified ? ["email": .string(user.email)] : [:]),
            "state": .string(user.disabled ? "disabled" : "enabled"), "auth_level": .string(authLevel),
            "redacted": .array([]), "groups": .array([]), "attributes": .object([:])
        ]
    }

    /// The claims the plugin puts in every access token, which the SDK reads (`app_user_id`) to tell
    /// its sessions from a legacy Rownd token (`authenticated`). A guest's say so as the plugin's
    /// do: `auth_level` `guest` (which the plugin counts as a verified user), `is_anonymous` true and
    /// its `anonymous_id`. `now` is in milliseconds, as `is_anonymous.t` is written.
    static func claims(for user: User, guest: Bool, now: Double) -> [String: JSONValue] {
        let level = JSONValue.string(authLevel(of: user, guest: guest))
        let verified = JSONValue.bool(guest || user.emailVerified)
        let id = JSONValue.string(user.id.rawValue)
        var claims: [String: JSONValue] = [
            "app_user_id": id, "auth_level": level, "is_verified_user": verified,
            "https://auth.rownd.io/app_user_id": id, "https://auth.rownd.io/auth_level": level,
            "https://auth.rownd.io/is_verified_user": verified,
            "rownd_session_authentication": "authenticated",
            "is_anonymous": .object(["v": .bool(guest), "t": .number(now)])
        ]
        if guest {
            claims["https://auth.rownd.io/is_anonymous"] = .bool(true)
            claims["anonymous_id"] = anonymousID(of: user)
        }
        return claims
    }
}
