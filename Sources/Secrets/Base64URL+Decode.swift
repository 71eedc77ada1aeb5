extension Base64URL {
    /// The bytes of base64url text (`=` padding tolerated), or nil for anything else — including a
    /// last character whose unused low bits are set, so one byte string has one spelling. Read
    /// straight from the alphabet: every API call decodes its token's parts.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        decode(utf8: text.utf8)
    }

    /// `decode` of text given as its UTF-8 bytes.
    public static func decode(utf8 text: some Collection<UInt8>) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count * 3 / 4)
        var group: UInt32 = 0
        var count = 0
        for character in text where character != UInt8(ascii: "=") {
            let value = sextets[Int(character)]
            guard value != invalid else { return nil }
            group = group << 6 | UInt32(value)
            count += 1
            if count == 4 {
                bytes.append(UInt8(truncatingIfNeeded: group >> 16))
                bytes.append(UInt8(truncatingIfNeeded: group >> 8))
                bytes.append(UInt8(truncatingIfNeeded: group))
                group = 0
                count = 0
            }
        }
        switch count {
        case 0: break
        case 2:
            guard group & 0xF == 0 else { return nil }
            bytes.append(UInt8(truncatingIfNeeded: group >> 4))
        case 3:
            guard group & 0x3 == 0 else { return nil }
            bytes.append(UInt8(truncatingIfNeeded: group >> 10))
            bytes.append(UInt8(truncatingIfNeeded: group >> 2))
        default: return nil
        }
        return bytes
    }

    private static let invalid: UInt8 = 0xFF

    /// Each byte's value in the alphabet, `invalid` for bytes outside it.
    private static let sextets: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()
}
