/// A direct JSON reader for `JSONValue` (RFC 8259), for the hot paths that read JSON stored by
/// Gatehouse itself (a user's profile on every row of a list). `JSONDecoder` finds a value's type by
/// trying each case and catching the failures, which costs an error per field.
extension JSONValue {
    /// The JSON text's value, or nil when it is not exactly one well-formed JSON value.
    public init?(parsing text: String) {
        var text = text
        let parsed: JSONValue? = text.withUTF8 { bytes in
            var reader = JSONReader(bytes: bytes)
            guard let value = reader.value(depth: 0) else { return nil }
            reader.skipWhitespace()
            return reader.position == bytes.count ? value : nil
        }
        guard let parsed else { return nil }
        self = parsed
    }
}

/// Reads one JSON value at a time from UTF-8 bytes; nil on anything malformed.
private struct JSONReader {
    /// Deeper nesting is refused rather than recursed into (a stack overflow is not an answer).
    static let maximumDepth = 512

    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    mutating func value(depth: Int) -> JSONValue? {
        skipWhitespace()
        guard position < bytes.count, depth < Self.maximumDepth else { return nil }
        switch bytes[position] {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { return nil }
        for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] { return nil }
        position += count
        return value
    }

    private mutating func object(depth: Int) -> JSONValue? {
        position += 1
        var fields: [String: JSONValue] = [:]
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(fields)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let key = string() else { return nil }
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
            position += 1
            guard let value = value(depth: depth + 1) else { return nil }
            fields[key] = value
            skipWhitespace()
            guard position < bytes.count else { return nil }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
            } else if bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(fields)
            } else {
                return nil
            }
        }
    }

    private mutating func array(depth: Int) -> JSONValue? {
        position += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(items)
        }
        while true {
            guard let item = value(depth: depth + 1) else { return nil }
            items.append(item)
            skipWhitespace()
            guard position < bytes.count else { return nil }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
            } else if bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(items)
            } else {
                return nil
            }
        }
    }

    /// A string starting at the opening quote; escapes decoded, lone surrogates refused.
    private mutating func string() -> String? {
        position += 1
        let start = position
        // The common case: no escapes, so the bytes between the quotes are the string.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                defer { position += 1 }
                return String(validating: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { return nil }
            position += 1
        }
        var scalars = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { return nil }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    scalars.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                scalars.append(byte)
            }
        }
        return nil
    }

    /// The scalar of a `\uXXXX` escape (the `\u` read), joining a surrogate pair.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if (0xD800...0xDBFF).contains(high) {
            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
            else { return nil }
            position += 2
            guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)
    }

    private mutating func hex4() -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// A number in JSON's grammar (no leading zeros, no `+`, no bare `.`), read as a `Double`.
    private mutating func number() -> JSONValue? {
        let start = position
        func digits() -> Int {
            let first = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position - first
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits()
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { return nil }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits() > 0 else { return nil }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let number = Double(text), number.isFinite else { return nil }
        return .number(number)
    }
}
