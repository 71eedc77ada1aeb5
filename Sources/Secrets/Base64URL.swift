/// Base64url without padding (RFC 4648 §5): safe in URLs, cookies and form fields as is.
public enum Base64URL {
    /// Straight from the alphabet, three bytes at a time: tokens are encoded on every API answer
    /// and for every new visitor's CSRF secret.
    public static func encode(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        encode(bytes, appendingTo: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends the encoding of `bytes` to `text` (a token is built as one byte buffer).
    public static func encode(_ bytes: [UInt8], appendingTo text: inout [UInt8]) {
        text.reserveCapacity(text.count + (bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            text.append(alphabet[Int(group >> 18)])
            text.append(alphabet[Int(group >> 12 & 0x3F)])
            text.append(alphabet[Int(group >> 6 & 0x3F)])
            text.append(alphabet[Int(group & 0x3F)])
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let group = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            text.append(alphabet[Int(group >> 18)])
            text.append(alphabet[Int(group >> 12 & 0x3F)])
            if rest == 2 { text.append(alphabet[Int(group >> 6 & 0x3F)]) }
        }
    }

    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}
