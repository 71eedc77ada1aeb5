/// A CBOR data item (RFC 8949) as WebAuthn and CTAP2 use them: definite lengths only, maps kept in
/// the order they came (lookups compare keys), no duplicate keys.
public indirect enum CBOR: Sendable, Equatable {
    case unsigned(UInt64)
    /// A negative integer stored as CBOR writes it: the value is `-1 - n`.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    case map([(key: CBOR, value: CBOR)])
    case tagged(UInt64, CBOR)
    case bool(Bool)
    case null
    case undefined
    case simple(UInt8)
    case float(Double)

    public static func == (lhs: CBOR, rhs: CBOR) -> Bool {
        switch (lhs, rhs) {
        case (.unsigned(let a), .unsigned(let b)), (.negative(let a), .negative(let b)): a == b
        case (.bytes(let a), .bytes(let b)): a == b
        case (.text(let a), .text(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.map(let a), .map(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.tagged(let t, let a), .tagged(let u, let b)): t == u && a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null), (.undefined, .undefined): true
        case (.simple(let a), .simple(let b)): a == b
        case (.float(let a), .float(let b)): a == b || (a.isNaN && b.isNaN)
        default: false
        }
    }

    /// The value under `key` in a map; nil for a missing key or a value that is not a map.
    public subscript(_ key: CBOR) -> CBOR? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    /// The value under a COSE-style integer label.
    public subscript(label label: Int) -> CBOR? { self[CBOR(label)] }

    /// The value under a text key ("fmt", "authData").
    public subscript(_ name: String) -> CBOR? { self[CBOR.text(name)] }

    /// An integer as CBOR writes it.
    public init(_ integer: Int) {
        self = integer >= 0 ? .unsigned(UInt64(integer)) : .negative(UInt64(-1 - integer))
    }

    /// The integer, when it is one that fits an `Int`.
    public var int: Int? {
        switch self {
        case .unsigned(let n) where n <= UInt64(Int.max): Int(n)
        case .negative(let n) where n <= UInt64(Int.max): -1 - Int(n)
        default: nil
        }
    }

    public var byteString: [UInt8]? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }

    public var textString: String? {
        if case .text(let text) = self { return text }
        return nil
    }
}
