import Foundation

/// Decoders for `Content-Transfer-Encoding` (RFC 2045 §6), lenient the way mail readers are.
enum TransferEncoding {
    /// Quoted-printable: `=XX` escapes, `=` at the end of a line joins it to the next (a soft line break),
    /// trailing whitespace is dropped; a malformed escape is kept literally. Hard line breaks become LF.
    static func quotedPrintable(_ lines: [ArraySlice<UInt8>]) -> [UInt8] {
        var output: [UInt8] = []
        for (number, rawLine) in lines.enumerated() {
            var line = rawLine
            while let last = line.last, last == 32 || last == 9 { line.removeLast() }
            let soft = line.last == UInt8(ascii: "=")
            if soft { line.removeLast() }
            var index = line.startIndex
            while index < line.endIndex {
                let byte = line[index]
                if byte == UInt8(ascii: "="), line.endIndex - index >= 3,
                    let high = hexValue(line[index + 1]), let low = hexValue(line[index + 2])
                {
                    output.append(high << 4 | low)
                    index += 3
                } else {
                    output.append(byte)
                    index += 1
                }
            }
            if !soft && number < lines.count - 1 { output.append(10) }
        }
        return output
    }

    /// Base64, ignoring line breaks and anything outside the alphabet; stops at padding.
    static func base64(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            if byte == UInt8(ascii: "=") { break }
            guard let value = base64Value(byte) else { continue }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return output
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    private static func base64Value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"), UInt8(ascii: "-"): 62
        case UInt8(ascii: "/"), UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
