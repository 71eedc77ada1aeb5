/// A direct JSON writer for `JSONValue`, byte for byte what `JSONEncoder` writes with
/// `[.sortedKeys, .withoutEscapingSlashes]` (keys in UTF-8 order, whole numbers without `.0`,
/// control characters as `\n`/`\u0001`). API answers are built from these values on every request,
/// and `JSONEncoder` spends most of its time in its generic containers.
extension JSONValue {
    /// The value as JSON text (UTF-8).
    public var serialized: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output)
        return output
    }

    /// Appends the value's JSON to `output`.
    public func write(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value): Self.write(number: value, to: &output)
        case .string(let value): Self.write(string: value, to: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                item.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let fields):
            output.append(UInt8(ascii: "{"))
            // Sorted as pairs: no second lookup of each key.
            let pairs = fields.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (index, pair) in pairs.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.write(string: pair.key, to: &output)
                output.append(UInt8(ascii: ":"))
                pair.value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Swift's shortest round-trip text, without the `.0` of a whole number (as `JSONEncoder`).
    /// Non-finite numbers have no JSON form; `null` stands in (a profile never holds one).
    private static func write(number: Double, to output: inout [UInt8]) {
        guard number.isFinite else { return output.append(contentsOf: "null".utf8) }
        // Whole numbers below 10^15 (times, counts) read the same as integers, without
        // `description`'s string.
        if number.rounded(.towardZero) == number, abs(number) < 1e15, !(number.isZero && number.sign == .minus) {
            return write(integer: Int(number), to: &output)
        }
        var text = number.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        output.append(contentsOf: text.utf8)
    }

    private static func write(integer: Int, to output: inout [UInt8]) {
        if integer < 0 { output.append(UInt8(ascii: "-")) }
        let start = output.endIndex
        var rest = integer.magnitude
        repeat {
            output.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        output[start...].reverse()
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Copies runs that need no escape in one piece (ids, emails and tokens are one run).
    static func write(string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            for (index, byte) in bytes.enumerated()
            where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                writeEscaped(byte, to: &output)
                runStart = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func writeEscaped(_ byte: UInt8, to output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
        case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
        case 0x08: output.append(contentsOf: #"\b"#.utf8)
        case 0x0C: output.append(contentsOf: #"\f"#.utf8)
        case 0x0A: output.append(contentsOf: #"\n"#.utf8)
        case 0x0D: output.append(contentsOf: #"\r"#.utf8)
        case 0x09: output.append(contentsOf: #"\t"#.utf8)
        default:
            output.append(contentsOf: #"\u00"#.utf8)
            output.append(hexDigits[Int(byte >> 4)])
            output.append(hexDigits[Int(byte & 0xF)])
        }
    }

}

/// A JSON object written field by field, keys given in UTF-8 order (checked in debug builds): the
/// bytes `JSONValue.object` writes for the same fields, without a dictionary to build, hash and
/// sort. For answers with many fixed keys built on every request (Descope's user and `JWTResponse`).
public struct JSONObjectWriter {
    private var output: [UInt8]
    private var hasFields = false
    #if DEBUG
        private var previousKey: String?
    #endif

    public init(capacity: Int = 256) {
        output = []
        output.reserveCapacity(capacity)
        output.append(UInt8(ascii: "{"))
    }

    /// Continues writing into `output` (a nested object).
    private init(continuing output: [UInt8]) {
        self.output = output
        self.output.append(UInt8(ascii: "{"))
    }

    public mutating func field(_ key: String, _ value: JSONValue) {
        self.key(key)
        value.write(to: &output)
    }

    /// A field whose value is an object `write` fills in.
    public mutating func field(_ key: String, object write: (inout JSONObjectWriter) -> Void) {
        self.key(key)
        var nested = JSONObjectWriter(continuing: output)
        output = []
        write(&nested)
        output = nested.finished()
    }

    /// The object's JSON text (UTF-8).
    public consuming func finished() -> [UInt8] {
        output.append(UInt8(ascii: "}"))
        return output
    }

    private mutating func key(_ key: String) {
        #if DEBUG
            if let previousKey {
                assert(previousKey.utf8.lexicographicallyPrecedes(key.utf8), "JSON keys out of order: \(previousKey), \(key)")
            }
            previousKey = key
        #endif
        if hasFields { output.append(UInt8(ascii: ",")) }
        hasFields = true
        JSONValue.write(string: key, to: &output)
        output.append(UInt8(ascii: ":"))
    }
}
