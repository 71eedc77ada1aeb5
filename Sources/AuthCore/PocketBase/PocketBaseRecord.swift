import Foundation

/// An auth record as PocketBase returns it, kept as raw JSON so the profile field's name can be configured.
struct PocketBaseRecord: Decodable, Sendable {
    var fields: [String: JSONValue]

    init(from decoder: Decoder) throws {
        fields = try decoder.singleValueContainer().decode([String: JSONValue].self)
    }

    var id: String { fields["id"]?.stringValue ?? "" }
    var collectionId: String? { fields["collectionId"]?.stringValue }

    /// The account in Gatehouse's terms: `name` from PocketBase's `name` field, every other
    /// profile key from the JSON field `profileField`.
    func user(profileField: String?) -> User {
        var profile: [String: JSONValue] = [:]
        if let profileField, case .object(let stored)? = fields[profileField] { profile = stored }
        if let name = fields["name"]?.stringValue, !name.isEmpty { profile["name"] = .string(name) }
        return User(
            id: UserID(id), email: fields["email"]?.stringValue ?? "",
            emailVerified: fields["verified"] == .bool(true), profile: Profile(profile),
            createdAt: Self.date(fields["created"]), updatedAt: Self.date(fields["updated"]))
    }

    /// PocketBase's `2026-11-21 22:21:30.584Z`.
    static func date(_ value: JSONValue?) -> Date {
        guard let text = value?.stringValue else { return Date(timeIntervalSince1970: 0) }
        let iso = text.replacingOccurrences(of: " ", with: "T")
        return (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(iso))
            ?? (try? Date.ISO8601FormatStyle().parse(iso)) ?? Date(timeIntervalSince1970: 0)
    }
}

/// `{token, record}` from `auth-with-password`, `auth-refresh` and `impersonate`.
struct PocketBaseAuthReply: Decodable, Sendable {
    var token: String
    var record: PocketBaseRecord
}

/// A page of `records`.
struct PocketBaseList<Item: Decodable & Sendable>: Decodable, Sendable {
    var items: [Item]
    var page: Int
    var perPage: Int
    var totalItems: Int
}

/// A record of `_externalAuths`.
struct PocketBaseExternalAuth: Decodable, Sendable {
    var id: String
    var recordRef: String
    var provider: String
    var providerId: String
    var created: String

    var externalAuth: ExternalAuth {
        ExternalAuth(
            id: id, userID: UserID(recordRef), provider: provider, providerID: providerId,
            createdAt: PocketBaseRecord.date(.string(created)))
    }
}
