import Accounts
import AuthCore
import Foundation
import HTTPServer

/// An account as the Rownd SDK reads it from `plugin/rownd/user` (supertokens-rownd's projection):
/// `data` is the Gatehouse profile with the account's id and address (and the Rownd schema's
/// string fields, empty until set), `meta` the app's own meta (`AppUserMeta`) with the account's
/// dates, `auth_level` whether the address is proven.
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

    init(_ signedIn: SignedIn, meta: [String: JSONValue]) {
        (user, self.meta, signedInAt) = (signedIn.user, meta, signedIn.signedInAt)
    }

    var authLevel: String { user.emailVerified ? "verified" : "unverified" }

    var data: [String: JSONValue] {
        var data = user.profile.fields.filter { !Self.identityFields.contains($0.key) && $0.key != "email" }
        for field in Self.schemaFields where data[field] == nil { data[field] = .string("") }
        data["user_id"] = .string(user.id.rawValue)
        data["email"] = .string(user.email)
        return data
    }

    /// The plugin's user answer: `{status, rownd_user, data, meta, verified_data, state, auth_level, …}`.
    var json: [String: JSONValue] {
        let created = JSONValue.string(Timestamp.iso8601(user.createdAt))
        let signedIn = JSONValue.string(Timestamp.iso8601(signedInAt))
        let dates: [String: JSONValue] = [
            "created": created, "first_sign_in": created, "last_sign_in": signedIn, "last_active": signedIn,
            "first_sign_in_method": "email", "last_sign_in_method": "email"
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
    /// its sessions from a legacy Rownd token: every session here comes of a proven sign-in
    /// (`authenticated`), never a guest's. `now` is in milliseconds, as `is_anonymous.t` is written.
    static func claims(for user: User, now: Double) -> [String: JSONValue] {
        let level = JSONValue.string(user.emailVerified ? "verified" : "unverified")
        let id = JSONValue.string(user.id.rawValue)
        return [
            "app_user_id": id, "auth_level": level, "is_verified_user": .bool(user.emailVerified),
            "https://auth.rownd.io/app_user_id": id, "https://auth.rownd.io/auth_level": level,
            "https://auth.rownd.io/is_verified_user": .bool(user.emailVerified),
            "rownd_session_authentication": "authenticated",
            "is_anonymous": .object(["v": .bool(false), "t": .number(now)])
        ]
    }
}
