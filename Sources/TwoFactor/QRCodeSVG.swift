import CQREncode

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Server-side QR codes as small, script-free SVG, so the enrollment page needs no JavaScript and leaks the
/// secret to no third-party image service.
///
/// Encoding is done by libqrencode: Debian-packaged (`libqrencode-dev`), maintained, and the reference C
/// QR encoder behind `qrencode(1)`.
public enum QRCodeSVG {
    /// Why a QR code could not be made.
    public enum Failure: Error, Equatable {
        /// `moduleSize` below 1 or `quietZone` below 0.
        case invalidDimensions
        /// The text contains a NUL byte, which the C API cannot carry.
        case embeddedNUL
        /// libqrencode refused the text (empty, or too long for any version at level M); carries its `errno`.
        case encodingFailed(errno: Int32)
    }

    /// An SVG QR code of `text` at error-correction level M, byte mode.
    ///
    /// Each module is `moduleSize` user units and the symbol has `quietZone` light modules on every side, so the
    /// `viewBox` is `(width + 2 × quietZone) × moduleSize` square. Dark modules are drawn as one `<path>` of
    /// horizontal runs over a white background `<rect>`. `label` becomes the `aria-label`; it is XML-escaped, and
    /// `text` itself (which holds the secret) never appears in the output.
    public static func svg(
        for text: String, moduleSize: Int = 4, quietZone: Int = 4, label: String = "QR code"
    ) throws(Failure) -> String {
        guard moduleSize >= 1, quietZone >= 0 else { throw .invalidDimensions }
        let (width, dark) = try modules(of: text)

        var path = ""
        for y in 0..<width {
            var x = 0
            while x < width {
                guard dark[y * width + x] else {
                    x += 1
                    continue
                }
                let start = x
                while x < width && dark[y * width + x] { x += 1 }
                let left = (start + quietZone) * moduleSize
                let top = (y + quietZone) * moduleSize
                let run = (x - start) * moduleSize
                path += "M\(left) \(top)h\(run)v\(moduleSize)h-\(run)z"
            }
        }

        let size = (width + 2 * quietZone) * moduleSize
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(size) \(size)" width="\(size)" height="\(size)" \
            shape-rendering="crispEdges" role="img" aria-label="\(escaped(label))">\
            <rect width="\(size)" height="\(size)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>
            """
    }

    /// The symbol of `text` at level M, byte mode: its width in modules and whether each module
    /// (row by row) is dark.
    static func modules(of text: String) throws(Failure) -> (width: Int, dark: [Bool]) {
        guard !text.utf8.contains(0) else { throw .embeddedNUL }
        errno = 0
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else {
            throw .encodingFailed(errno: errno)
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard let data = code.pointee.data else { throw .encodingFailed(errno: 0) }
        // Bit 0 of each module byte is dark/light; the other bits describe the module's role.
        return (width, (0..<width * width).map { data[$0] & 1 == 1 })
    }

    /// Escapes text for an XML attribute value.
    private static func escaped(_ text: String) -> String {
        var output = ""
        for character in text {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&apos;"
            default: output.append(character)
            }
        }
        return output
    }
}
