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

    /// The value of `:name`. A route that declares it always captures one, so a missing one means a
    /// handler reads a name its route lacks: answered 404, never taken as an empty string.
    public func require(_ name: String) throws(RequestError) -> String {
        guard let value = values[name] else { throw .noSuchResource }
        return value
    }

    /// `:name` as a `T` (`Int64`, `UserID`…); a value that does not convert names nothing: 404.
    public func require<T: LosslessStringConvertible>(_ name: String, as type: T.Type) throws(RequestError) -> T {
        guard let value = T(try require(name)) else { throw .noSuchResource }
        return value
    }

    /// What the trailing `*` matched, segments joined with `/` (empty when nothing followed).
    public var wildcard: String? {
        values["*"]
    }

    mutating func set(_ name: String, _ value: String) {
        values[name] = value
    }
}
