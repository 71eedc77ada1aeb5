/// Strict percent-decoding (RFC 3986 §2.1) for paths, query strings and urlencoded forms.
///
/// Unlike MHD's default decoder, anything doubtful is an error rather than passed through:
/// a `%` not followed by two hex digits, a decoded NUL, or bytes that are not valid UTF-8.
enum PercentDecoding {
    /// Decodes `text`; with `plusAsSpace` (query strings and form bodies) `+` means a space.
    static func decode(_ text: Substring, plusAsSpace: Bool) throws(RequestError) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") || $0 == 0 }) else {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            switch byte {
            case UInt8(ascii: "%"):
                let first = utf8.index(after: index)
                guard first < utf8.endIndex else { throw .malformedEncoding }
                let second = utf8.index(after: first)
                guard second < utf8.endIndex,
                    let high = hexValue(utf8[first]), let low = hexValue(utf8[second])
                else {
                    throw .malformedEncoding
                }
                let decoded = high << 4 | low
                guard decoded != 0 else { throw .malformedEncoding }
                bytes.append(decoded)
                index = utf8.index(after: second)
                continue
            case UInt8(ascii: "+") where plusAsSpace:
                bytes.append(UInt8(ascii: " "))
            case 0:
                throw .malformedEncoding
            default:
                bytes.append(byte)
            }
            index = utf8.index(after: index)
        }
        guard let string = UTF8Text.string(bytes) else { throw .malformedEncoding }
        return string
    }

    /// Parses `a=1&b=2` pairs (empty pieces skipped, a piece without `=` has an empty value).
    static func parsePairs(_ text: Substring) throws(RequestError) -> Parameters {
        var result = Parameters()
        for piece in text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = piece.firstIndex(of: UInt8(ascii: "="))
            let name = Substring(piece[..<(equals ?? piece.endIndex)])
            let value = equals.map { Substring(piece[piece.index(after: $0)...]) } ?? ""
            result.append(try decode(name, plusAsSpace: true), try decode(value, plusAsSpace: true))
        }
        return result
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
