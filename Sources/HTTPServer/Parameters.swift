/// An ordered multi-map of decoded names to values (query strings, form bodies).
///
/// A key that repeats is ambiguous: `subscript` answers nil for it and `single(_:)` throws, so
/// security-relevant fields are never guessed (MHD's own lookup returns "any one of them").
public struct Parameters: Sendable, Sequence, Equatable, ExpressibleByDictionaryLiteral {
    private var pairs: [Pair]

    /// One name/value occurrence.
    public struct Pair: Sendable, Equatable {
        public let name: String
        public let value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(_ pairs: [(String, String)] = []) {
        self.pairs = pairs.map { Pair(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The value when `name` appears exactly once; nil when missing or repeated.
    public subscript(name: String) -> String? {
        let found = values(name)
        return found.count == 1 ? found[0] : nil
    }

    /// The value when `name` appears once, nil when missing; throws `.duplicateField` when repeated.
    public func single(_ name: String) throws(RequestError) -> String? {
        let found = values(name)
        guard found.count <= 1 else { throw .duplicateField(name) }
        return found.first
    }

    /// Every value for `name`, in order.
    public func values(_ name: String) -> [String] {
        pairs.filter { $0.name == name }.map(\.value)
    }

    /// Distinct names in first-seen order.
    public var allKeys: [String] {
        var seen = Set<String>()
        return pairs.compactMap { seen.insert($0.name).inserted ? $0.name : nil }
    }

    public var isEmpty: Bool { pairs.isEmpty }
    public var count: Int { pairs.count }

    /// Appends an occurrence.
    public mutating func append(_ name: String, _ value: String) {
        pairs.append(Pair(name: name, value: value))
    }

    public func makeIterator() -> some IteratorProtocol<(name: String, value: String)> {
        pairs.lazy.map { (name: $0.name, value: $0.value) }.makeIterator()
    }
}

extension Parameters {
    /// The pairs of an `application/x-www-form-urlencoded` text (a query string), decoded as a
    /// request's query is: for query strings carried inside other values.
    public init(urlEncoded text: Substring) throws(RequestError) {
        self = try PercentDecoding.parsePairs(text)
    }
}
