/// A user's profile: free JSON key/values with a few well-known keys (InsForge's shape:
/// `{name?, avatar_url?, …}`). Updates are shallow merges; a `null` value removes the key.
public struct Profile: Sendable, Hashable, Codable {
    public var fields: [String: JSONValue]

    public init(_ fields: [String: JSONValue] = [:]) { self.fields = fields }

    public var name: String? { fields["name"]?.stringValue }
    public var bio: String? { fields["bio"]?.stringValue }
    public var avatarURL: String? { fields["avatar_url"]?.stringValue }

    /// Keys shown as their own form fields; everything else is a "custom" key/value.
    public static let wellKnownKeys: Set<String> = ["name", "bio", "avatar_url"]

    /// Shallow merge as InsForge's `PATCH /profiles/current` does: each key replaces, `null` deletes.
    public func merging(_ patch: [String: JSONValue]) -> Profile {
        var merged = fields
        for (key, value) in patch {
            if value == .null { merged.removeValue(forKey: key) } else { merged[key] = value }
        }
        return Profile(merged)
    }

    public init(from decoder: Decoder) throws {
        fields = try decoder.singleValueContainer().decode([String: JSONValue].self)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(fields)
    }
}
