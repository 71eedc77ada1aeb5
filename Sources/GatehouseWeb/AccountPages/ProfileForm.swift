import AuthCore
import HTTPServer

/// The `setProfile` form: name, bio, avatar_url, and free key/value rows (`custom_key_N`/`custom_value_N`).
/// Submitting it makes the profile match the form: changed keys are set, cleared or missing ones removed.
struct ProfileForm {
    struct Row {
        var key: String
        var value: String
        var error: String?
    }

    static let ownFields: Set<String> = ["name", "bio", "avatar_url"]
    /// Rows beyond this are refused rather than guessed at.
    static let maximumRows = 50

    var name: String
    var bio: String
    var avatarURL: String
    var custom: [Row]

    /// The form as it shows the current profile.
    init(profile: Profile) {
        name = profile.name ?? ""
        bio = profile.bio ?? ""
        avatarURL = profile.avatarURL ?? ""
        custom = profile.fields.filter { !Profile.wellKnownKeys.contains($0.key) }
            .sorted { $0.key < $1.key }
            .map { Row(key: $0.key, value: $0.value.displayText) }
    }

    /// The form as posted; rows are read in index order, blank rows dropped.
    init(_ form: Parameters) throws(RequestError) {
        name = (try form.single("name") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        bio = (try form.single("bio") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        avatarURL = (try form.single("avatar_url") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let prefix = "custom_key_"
        let indices = Set(
            form.allKeys.compactMap { key in
                key.hasPrefix(prefix) ? Int(key.dropFirst(prefix.count)) : nil
            }
        ).sorted()
        var rows: [Row] = []
        for index in indices {
            let key = (try form.single("\(prefix)\(index)") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            let value = try form.single("custom_value_\(index)") ?? ""
            if key.isEmpty && value.isEmpty { continue }
            rows.append(Row(key: key, value: value))
        }
        custom = rows
    }

    /// Problems the page can see before asking the backend; the backend checks the rest.
    mutating func validate() -> FormErrors {
        var errors = FormErrors()
        if custom.count > Self.maximumRows {
            errors.add("custom", "Keep it to \(Self.maximumRows) custom fields or fewer.")
        }
        var seen: Set<String> = []
        for index in custom.indices {
            let key = custom[index].key
            let problem: String?
            if key.isEmpty {
                problem = "Give this value a key."
            } else if Profile.wellKnownKeys.contains(key) {
                problem = "“\(key)” has its own field above."
            } else if !seen.insert(key).inserted {
                problem = "“\(key)” appears twice."
            } else {
                problem = nil
            }
            if let problem {
                custom[index].error = problem
                errors.add("custom", problem)
            }
        }
        return errors
    }

    /// The shallow-merge patch that turns `profile` into what the form shows; empty when nothing changed.
    func patch(against profile: Profile) -> [String: JSONValue] {
        var patch: [String: JSONValue] = [:]
        func update(_ key: String, to typed: String) {
            let current = profile.fields[key]
            if typed.isEmpty {
                if current != nil { patch[key] = .null }
            } else if current?.displayText != typed {
                patch[key] = .string(typed)
            }
        }
        update("name", to: name)
        update("bio", to: bio)
        update("avatar_url", to: avatarURL)
        for row in custom { update(row.key, to: row.value) }
        let kept = Set(custom.map(\.key))
        for key in profile.fields.keys where !Profile.wellKnownKeys.contains(key) && !kept.contains(key) {
            patch[key] = .null
        }
        return patch
    }

    /// The template keys for the form: `form.*`, the `custom` rows and the index of the blank row.
    var context: [String: Any] {
        [
            "form": ["name": name, "bio": bio, "avatar_url": avatarURL],
            "custom": custom.enumerated().map { index, row in
                var entry: [String: Any] = ["index": index, "key": row.key, "value": row.value]
                entry["error"] = row.error
                return entry
            },
            "nextCustomIndex": custom.count
        ]
    }

    /// Puts a backend's message next to the row holding `key`.
    mutating func markCustomError(key: String, message: String) {
        if let index = custom.firstIndex(where: { $0.key == key }) { custom[index].error = message }
    }
}
