/// A user's identifier as the backend spells it (the embedded store uses 15 chars of `[a-z0-9]`,
/// like PocketBase record ids). Typed so ids never mix with other strings past the request boundary.
public struct UserID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}
