/// Values captured by a route pattern: `:name` segments and the trailing `*` wildcard.
public struct PathParameters: Sendable, Equatable {
    private var values: [String: String] = [:]

    public init(_ values: [String: String] = [:]) {
        self.values = values
    }

    /// The decoded value of `:name`, or `"*"` for the wildcard's rest of the path.
    public subscript(name: String) -> String? {
        values[name]
    }

    /// What the trailing `*` matched, segments joined with `/` (empty when nothing followed).
    public var wildcard: String? {
        values["*"]
    }

    mutating func set(_ name: String, _ value: String) {
        values[name] = value
    }
}
