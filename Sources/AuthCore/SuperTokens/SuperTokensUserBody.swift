import Foundation

/// The accounts a SuperTokens FDI shows, as the seam's `User`.
enum SuperTokensUserBody {
    /// SuperTokens' `user` in a sign-in answer (`{id, emails, timeJoined, loginMethods}`): no
    /// profile (SuperTokens keeps none); the address is verified when one of its login methods says so.
    static func user(_ json: JSONValue?) throws -> User {
        guard case .object(let user)? = json, let id = user["id"]?.stringValue, !id.isEmpty else {
            throw badResponse("a sign-in answered without its user")
        }
        let methods: [[String: JSONValue]] =
            if case .array(let items)? = user["loginMethods"] {
                items.compactMap { if case .object(let method) = $0 { method } else { nil } }
            } else { [] }
        let email =
            SuperTokensBackend.strings(user["emails"]).first ?? methods.lazy.compactMap { $0["email"]?.stringValue }.first ?? ""
        let verified = methods.contains {
            $0["verified"] == .bool(true) && $0["email"]?.stringValue?.lowercased() == email.lowercased()
        }
        let joined = Date(timeIntervalSince1970: (number(user["timeJoined"]) ?? 0) / 1000)
        return User(
            id: UserID(id), email: email, emailVerified: verified, profile: Profile(), createdAt: joined, updatedAt: joined)
    }

    /// The Rownd plugin's user (`plugin/rownd/user`): `data` is the profile with the account's
    /// `user_id` and `email` beside it; a field Rownd's schema shows empty (`""`) is not set;
    /// `auth_level` says whether the address is proven; `meta.created` when the account was made.
    static func rowndUser(_ body: [String: JSONValue]) throws -> User {
        guard case .object(var data)? = body["data"],
            let id = data.removeValue(forKey: "user_id")?.stringValue ?? body["rownd_user"]?.stringValue
        else { throw badResponse("plugin/rownd/user answered without the account's data") }
        let email = data.removeValue(forKey: "email")?.stringValue ?? ""
        let created: Date =
            if case .object(let meta)? = body["meta"], let text = meta["created"]?.stringValue,
                let date = try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true))
            { date } else { Date(timeIntervalSince1970: 0) }
        return User(
            id: UserID(id), email: email, emailVerified: body["auth_level"]?.stringValue == "verified",
            profile: Profile(data.filter { $0.value != .string("") }),
            disabled: body["state"]?.stringValue == "disabled", createdAt: created, updatedAt: created)
    }

    private static func number(_ value: JSONValue?) -> Double? {
        if case .number(let number)? = value { number } else { nil }
    }

    static func badResponse(_ what: String) -> AuthError {
        .server(status: 502, code: "bad_response", message: "The SuperTokens API answered unexpectedly: \(what).")
    }
}
