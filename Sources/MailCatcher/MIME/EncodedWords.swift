import Foundation

/// RFC 2047 encoded-words in headers: `=?utf-8?B?…?=` and `=?iso-8859-1?Q?…?=`. Whitespace between two
/// adjacent encoded-words is dropped (§6.2); anything that does not parse stays as written.
enum EncodedWords {
    static func decode(_ header: String) -> String {
        var output = ""
        var lastWasEncoded = false
        var rest = Substring(header)
        while let start = rest.range(of: "=?") {
            let before = rest[..<start.lowerBound]
            guard let (decoded, after) = word(at: rest[start.lowerBound...]) else {
                output += before + "=?"
                lastWasEncoded = false
                rest = rest[start.upperBound...]
                continue
            }
            if lastWasEncoded && before.allSatisfy({ $0 == " " || $0 == "\t" }) {
                output += decoded
            } else {
                output += before + decoded
            }
            lastWasEncoded = true
            rest = after
        }
        return output + rest
    }

    /// Decodes one `=?charset?enc?text?=` at the start of `text`, returning what follows it.
    private static func word(at text: Substring) -> (String, Substring)? {
        let body = text.dropFirst(2)
        let fields = body.split(separator: "?", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4, fields[3].hasPrefix("="), !fields[2].contains(" ") else { return nil }
        // RFC 2231 allows `charset*language`.
        let charset = String(fields[0].split(separator: "*").first ?? "")
        let payload = Array(fields[2].utf8)
        let bytes: [UInt8]
        switch fields[1].uppercased() {
        case "B": bytes = TransferEncoding.base64(payload)
        case "Q": bytes = qDecode(payload)
        default: return nil
        }
        return (Charset.decode(bytes, charset: charset), fields[3].dropFirst())
    }

    /// The "Q" encoding: quoted-printable where `_` stands for a space.
    private static func qDecode(_ payload: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while index < payload.count {
            let byte = payload[index]
            if byte == UInt8(ascii: "_") {
                output.append(32)
            } else if byte == UInt8(ascii: "="), index + 2 < payload.count,
                let high = TransferEncoding.hexValue(payload[index + 1]),
                let low = TransferEncoding.hexValue(payload[index + 2])
            {
                output.append(high << 4 | low)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        return output
    }
}
