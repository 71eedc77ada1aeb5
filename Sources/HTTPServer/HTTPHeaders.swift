/// Ordered HTTP header fields with case-insensitive names; a name may repeat (e.g. `Set-Cookie`).
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// Fields in the order they were added, names as given.
    private var fields: [(name: String, value: String)] = []

    public init() {}

    public init(_ fields: [(String, String)]) {
        for (name, value) in fields { add(name, value) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value for `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { Self.same($0.name, name) }?.value
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// Whether at least one field is named `name`.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.same($0.name, name) }
    }

    /// Appends a field, keeping existing ones with the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// Replaces every field named `name` with a single one (added at the end if absent).
    public mutating func replaceOrAdd(_ name: String, _ value: String) {
        if let index = fields.firstIndex(where: { Self.same($0.name, name) }) {
            fields[index].value = value
            var position = fields.index(after: index)
            while position < fields.endIndex {
                if Self.same(fields[position].name, name) {
                    fields.remove(at: position)
                } else {
                    position = fields.index(after: position)
                }
            }
        } else {
            add(name, value)
        }
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.same($0.name, name) }
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> some IteratorProtocol<(name: String, value: String)> {
        fields.makeIterator()
    }

    /// Names only, values withheld: headers can carry cookies and credentials.
    public var description: String {
        "HTTPHeaders(\(fields.map(\.name).joined(separator: ", ")))"
    }

    /// Whether two field names are one, ASCII letters compared without case (RFC 9110 §5.1), byte by
    /// byte: every lookup runs this per field, so it makes no lowercased copies.
    private static func same(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.count == rhs.utf8.count
            && zip(lhs.utf8, rhs.utf8).allSatisfy { left, right in
                left == right || (left | 0x20 == right | 0x20 && (0x61...0x7A).contains(left | 0x20))
            }
    }
}
