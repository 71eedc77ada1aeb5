import Foundation

extension Base64URL {
    /// The bytes of base64url text (padding tolerated), or nil for anything else.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var base64: [UInt8] = []
        base64.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                base64.append(byte)
            case UInt8(ascii: "-"): base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): base64.append(UInt8(ascii: "/"))
            case UInt8(ascii: "="): continue
            default: return nil
            }
        }
        while base64.count % 4 != 0 { base64.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(base64)).map(Array.init)
    }
}
