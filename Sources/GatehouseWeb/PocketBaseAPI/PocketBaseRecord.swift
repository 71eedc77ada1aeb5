import Accounts
import AuthCore
import Foundation
import HTTPServer

/// Accounts as PocketBase writes `users` records: 15-character ids, `collectionId`/`collectionName`,
/// dates as `2026-11-22 11:05:29.111Z`, `email` only for the owner, superusers or when
/// `emailVisibility` is on, `name` and `avatar` from the profile (`name`, `avatar_url`), and every
/// other profile key as an extra field.
enum PocketBaseRecord {
    /// Profile keys with a record field of their own (or none: `emailVisibility` is a flag).
    static let mappedProfileKeys: Set<String> = ["name", "avatar_url", "emailVisibility"]
    /// Record fields Gatehouse owns; a profile key of the same name cannot shadow them.
    static let reservedFields: Set<String> = [
        "id", "collectionId", "collectionName", "created", "updated", "email", "emailVisibility", "verified",
        "name", "avatar", "password", "passwordConfirm", "oldPassword", "tokenKey", "expand"
    ]

    static func user(_ user: User, showEmail: Bool) -> [String: JSONValue] {
        var record: [String: JSONValue] = [:]
        for (key, value) in user.profile.fields where !mappedProfileKeys.contains(key) && !reservedFields.contains(key) {
            record[key] = value
        }
        let emailVisibility = user.profile.fields["emailVisibility"] == .bool(true)
        record["id"] = .string(user.id.rawValue)
        record["collectionId"] = .string(PocketBaseCollection.users.id)
        record["collectionName"] = .string(PocketBaseCollection.users.rawValue)
        record["created"] = .string(date(user.createdAt))
        record["updated"] = .string(date(user.updatedAt))
        record["emailVisibility"] = .bool(emailVisibility)
        record["verified"] = .bool(user.emailVerified)
        record["name"] = .string(user.profile.name ?? "")
        record["avatar"] = .string(user.profile.avatarURL ?? "")
        if showEmail || emailVisibility { record["email"] = .string(user.email) }
        return record
    }

    static func superuser(_ superuser: StaffMember) -> [String: JSONValue] {
        [
            "id": .string(superuser.id), "collectionId": .string(PocketBaseCollection.superusers.id),
            "collectionName": .string(PocketBaseCollection.superusers.rawValue),
            "created": .string(date(superuser.createdAt)), "updated": .string(date(superuser.updatedAt)),
            "email": .string(superuser.email), "emailVisibility": .bool(false), "verified": .bool(true)
        ]
    }

    static func externalAuth(_ link: ExternalAuth) -> [String: JSONValue] {
        [
            "id": .string(link.id), "collectionId": .string(PocketBaseCollection.externalAuths.id),
            "collectionName": .string(PocketBaseCollection.externalAuths.rawValue),
            "collectionRef": .string(PocketBaseCollection.users.id), "recordRef": .string(link.userID.rawValue),
            "provider": .string(link.provider), "providerId": .string(link.providerID),
            "created": .string(date(link.createdAt)), "updated": .string(date(link.createdAt))
        ]
    }

    /// `2026-11-22 11:05:29.111Z`, as PocketBase writes every date.
    static func date(_ date: Date) -> String {
        Timestamp.utc(date, separator: " ")
            ?? date.formatted(
                Date.VerbatimFormatStyle(
                    format:
                        "\(year: .padded(4))-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits).\(secondFraction: .fractional(3))Z",
                    timeZone: .gmt, calendar: Calendar(identifier: .gregorian)))
    }

    /// The names in a `fields` value (`a, b`).
    static func fieldNames(_ text: String) -> Set<String> {
        Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    }

    /// Only the fields a `fields=a,b` query asks for (PocketBase's `fields`); all when none.
    static func picking(_ record: [String: JSONValue], fields: Set<String>?) -> [String: JSONValue] {
        guard let fields, !fields.isEmpty, !fields.contains("*") else { return record }
        return record.filter { fields.contains($0.key) }
    }
}
