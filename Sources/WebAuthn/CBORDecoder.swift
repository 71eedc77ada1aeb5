/// Reads CBOR (RFC 8949) from untrusted bytes: definite lengths only (CTAP2's canonical form has
/// no others), nesting at most `maxDepth` deep, no length larger than the bytes left (so a forged
/// length never allocates), valid UTF-8 text, no duplicate map keys. `decode` refuses trailing
/// bytes; `decodePrefix` reads one item and says where it ended (authenticator data carries the
/// credential key and the extensions back to back).
public struct CBORDecoder {
    /// How deep arrays, maps and tags may nest; WebAuthn's deepest item (an attestation's
    /// certificate chain inside attStmt) is three.
    public static let maxDepth = 16
    /// The largest input read at all; an attestation object is a few kilobytes.
    public static let maxInput = 64 * 1024

    let bytes: [UInt8]
    var position: Int

    init(_ bytes: [UInt8], from start: Int = 0) {
        self.bytes = bytes
        position = start
    }

    /// The one item `bytes` holds; refuses anything after it.
    public static func decode(_ bytes: [UInt8]) throws(CBORError) -> CBOR {
        let (value, end) = try decodePrefix(bytes, from: 0)
        guard end == bytes.count else { throw .trailingBytes }
        return value
    }

    /// The item starting at `start`, and the index just after it.
    public static func decodePrefix(_ bytes: [UInt8], from start: Int) throws(CBORError) -> (CBOR, Int) {
        guard bytes.count <= maxInput else { throw .tooLarge }
        guard start <= bytes.count else { throw .truncated }
        var decoder = CBORDecoder(bytes, from: start)
        let value = try decoder.item(depth: 0)
        return (value, decoder.position)
    }

    mutating func item(depth: Int) throws(CBORError) -> CBOR {
        guard depth <= Self.maxDepth else { throw .tooDeep }
        let initial = try byte()
        let major = initial >> 5
        let info = initial & 0x1F
        if major == 7 { return try simpleOrFloat(info) }
        let argument = try argument(info)
        switch major {
        case 0: return .unsigned(argument)
        case 1: return .negative(argument)
        case 2: return .bytes(try take(argument))
        case 3:
            guard let text = String(validating: try take(argument), as: UTF8.self) else { throw .invalidText }
            return .text(text)
        case 4:
            let count = try count(argument)
            var items: [CBOR] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try item(depth: depth + 1)) }
            return .array(items)
        case 5:
            let count = try count(argument, itemsEach: 2)
            var pairs: [(key: CBOR, value: CBOR)] = []
            pairs.reserveCapacity(count)
            for _ in 0..<count {
                let key = try item(depth: depth + 1)
                guard !pairs.contains(where: { $0.key == key }) else { throw .duplicateKey }
                pairs.append((key, try item(depth: depth + 1)))
            }
            return .map(pairs)
        default:
            return .tagged(argument, try item(depth: depth + 1))
        }
    }

    mutating func simpleOrFloat(_ info: UInt8) throws(CBORError) -> CBOR {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 0..<20: return .simple(info)
        case 24:
            let value = try byte()
            guard value >= 32 else { throw .malformed }
            return .simple(value)
        case 25: return .float(Double(halfPrecision(UInt16(try argument(25)))))
        case 26: return .float(Double(Float(bitPattern: UInt32(try argument(26)))))
        case 27: return .float(Double(bitPattern: try argument(27)))
        case 31: throw .indefiniteLength
        default: throw .malformed
        }
    }

    /// The head's argument: the value itself below 24, else the 1, 2, 4 or 8 bytes after it.
    mutating func argument(_ info: UInt8) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24...27:
            var value: UInt64 = 0
            for _ in 0..<(1 << (info - 24)) { value = value << 8 | UInt64(try byte()) }
            return value
        case 31: throw .indefiniteLength
        default: throw .malformed
        }
    }

    /// A collection's length, refused when even one byte per item would run past the end.
    func count(_ argument: UInt64, itemsEach: Int = 1) throws(CBORError) -> Int {
        guard argument <= UInt64((bytes.count - position) / itemsEach) else { throw .truncated }
        return Int(argument)
    }

    mutating func take(_ length: UInt64) throws(CBORError) -> [UInt8] {
        guard length <= UInt64(bytes.count - position) else { throw .truncated }
        let end = position + Int(length)
        defer { position = end }
        return Array(bytes[position..<end])
    }

    mutating func byte() throws(CBORError) -> UInt8 {
        guard position < bytes.count else { throw .truncated }
        defer { position += 1 }
        return bytes[position]
    }
}

/// Why CBOR was refused.
public enum CBORError: Error, Sendable, Equatable {
    case truncated, trailingBytes, indefiniteLength, malformed, invalidText, duplicateKey, tooDeep, tooLarge
}

/// An IEEE 754 half-precision value (CBOR's 0xF9) widened by hand: `Float16` is not on every
/// platform Swift builds for.
private func halfPrecision(_ bits: UInt16) -> Float {
    let sign: Float = bits & 0x8000 == 0 ? 1 : -1
    let exponent = Int(bits >> 10 & 0x1F)
    let fraction = Float(bits & 0x3FF)
    switch exponent {
    case 0: return sign * fraction * 0x1p-24
    case 31: return fraction == 0 ? sign * .infinity : .nan
    default: return sign * (1 + fraction / 1024) * Float(sign: .plus, exponent: exponent - 15, significand: 1)
    }
}
