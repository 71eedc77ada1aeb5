import Foundation

/// Base64url without padding (RFC 4648 §5): safe in URLs, cookies and form fields as is.
public enum Base64URL {
    /// Byte by byte: tokens are encoded on every API answer, and string replacement is slow.
    public static func encode(_ bytes: [UInt8]) -> String {
        let standard = Data(bytes).base64EncodedData()
        var text: [UInt8] = []
        text.reserveCapacity(standard.count)
        for byte in standard {
            switch byte {
            case UInt8(ascii: "+"): text.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): text.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: text.append(byte)
            }
        }
        return String(decoding: text, as: UTF8.self)
    }
}
