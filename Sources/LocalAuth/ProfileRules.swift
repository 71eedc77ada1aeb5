import AuthCore
import Foundation

/// What a profile may hold, checked field by field so a form can show every problem at once.
enum ProfileRules {
    static let maxNameLength = 100
    static let maxBioLength = 1000
    static let maxAvatarURLLength = 2048
    static let maxKeys = 50
    static let maxJSONBytes = 16 * 1024
    private static let keyCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")

    /// Problems with the keys and well-known values of a patch (a `null` value removes a key and
    /// is always fine), sorted by field.
    static func problems(inPatch patch: [String: JSONValue]) -> [FieldError] {
        patch.keys.sorted().compactMap { key in
            guard (1...64).contains(key.count), key.allSatisfy(keyCharacters.contains) else {
                return FieldError(
                    field: String(key.prefix(64)),
                    message: "Keys are 1 to 64 letters, digits, underscores, dots or dashes.")
            }
            guard let value = patch[key], value != .null else { return nil }
            return problem(key: key, value: value).map { FieldError(field: key, message: $0) }
        }
    }

    /// Problems with the whole profile after merging: how many keys and how big.
    static func problems(inMerged profile: Profile) -> [FieldError] {
        var problems: [FieldError] = []
        if profile.fields.count > maxKeys {
            problems.append(FieldError(field: "profile", message: "A profile holds at most \(maxKeys) keys."))
        }
        let size = (try? JSONEncoder().encode(profile).count) ?? Int.max
        if size > maxJSONBytes {
            problems.append(FieldError(field: "profile", message: "A profile holds at most 16 KiB of JSON."))
        }
        return problems
    }

    /// The rule for a display name, shared with sign-up.
    static func nameProblem(_ name: String) -> String? {
        name.count > maxNameLength ? "Use at most \(maxNameLength) characters." : nil
    }

    private static func problem(key: String, value: JSONValue) -> String? {
        switch key {
        case "name":
            guard let name = value.stringValue else { return "Must be text." }
            return nameProblem(name)
        case "bio":
            guard let bio = value.stringValue else { return "Must be text." }
            return bio.count > maxBioLength ? "Use at most \(maxBioLength) characters." : nil
        case "avatar_url":
            guard let url = value.stringValue, isWebURL(url) else { return "Must be an http or https address." }
            return url.count > maxAvatarURLLength ? "Use at most \(maxAvatarURLLength) characters." : nil
        default:
            return nil
        }
    }

    /// An absolute http(s) URL with a host; anything else (`javascript:`, relative paths) could
    /// turn an `<img src>` into something else.
    private static func isWebURL(_ text: String) -> Bool {
        guard let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else { return false }
        return true
    }
}
