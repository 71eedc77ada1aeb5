/// RFC 4648 base32, the encoding authenticator apps use for TOTP secrets.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Encodes `bytes` as uppercase base32 without `=` padding (authenticator apps accept and prefer it unpadded).
    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(alphabet[Int((buffer >> UInt32(bits)) & 0x1F)])
            }
        }
        if bits > 0 {
            output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes base32 as a person might type it: case-insensitive, spaces ignored, trailing `=` padding optional.
    /// Returns nil on any other character, on `=` followed by data, or on a length no encoder produces.
    public static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        var symbols = 0
        var sawPadding = false
        for character in text.utf8 {
            if character == UInt8(ascii: " ") { continue }
            if character == UInt8(ascii: "=") {
                sawPadding = true
                continue
            }
            if sawPadding { return nil }
            let value: UInt32
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(character - UInt8(ascii: "a"))
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = UInt32(character - UInt8(ascii: "2")) + 26
            default: return nil
            }
            buffer = (buffer << 5) | value
            bits += 5
            symbols += 1
            if bits >= 8 {
                bits -= 8
                output.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
            }
        }
        // A final group of 1, 3 or 6 symbols cannot come from whole bytes.
        guard ![1, 3, 6].contains(symbols % 8) else { return nil }
        return output
    }
}
