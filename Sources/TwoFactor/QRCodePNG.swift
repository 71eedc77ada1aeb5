/// QR codes as PNG images (1 bit per pixel, black on white), for APIs whose clients want a picture
/// rather than markup — Descope's `totp/…` answers carry one in base64, and DescopeKit on iOS must
/// decode it as an image. The deflate stream uses stored blocks: the image is a few kilobytes
/// either way, and no compressor is needed.
public enum QRCodePNG {
    /// A PNG of `text`'s QR code (level M, byte mode), each module `moduleSize` pixels square with
    /// `quietZone` light modules around it.
    public static func png(for text: String, moduleSize: Int = 4, quietZone: Int = 4) throws(QRCodeSVG.Failure) -> [UInt8] {
        guard moduleSize >= 1, quietZone >= 0 else { throw .invalidDimensions }
        let (width, dark) = try QRCodeSVG.modules(of: text)
        let size = (width + 2 * quietZone) * moduleSize
        let rowBytes = (size + 7) / 8
        var pixels: [UInt8] = []
        pixels.reserveCapacity(size * (rowBytes + 1))
        for y in 0..<size {
            pixels.append(0)  // filter type None
            var row = [UInt8](repeating: 0xFF, count: rowBytes)  // 1 is white in a grayscale PNG
            let moduleY = y / moduleSize - quietZone
            for x in 0..<size {
                let moduleX = x / moduleSize - quietZone
                guard (0..<width).contains(moduleX), (0..<width).contains(moduleY), dark[moduleY * width + moduleX] else {
                    continue
                }
                row[x / 8] &= ~(0x80 >> UInt8(x % 8))
            }
            pixels += row
        }
        var header = bigEndian(UInt32(size)) + bigEndian(UInt32(size))
        header += [1, 0, 0, 0, 0]  // bit depth 1, grayscale, deflate, adaptive filters, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlibStored(pixels))
            + chunk("IEND", [])
    }

    /// A zlib stream (RFC 1950) of stored deflate blocks (RFC 1951 §3.2.4) and its Adler-32.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let final: UInt8 = offset + length == data.count ? 1 : 0
            let len = UInt16(length)
            output += [final, UInt8(len & 0xFF), UInt8(len >> 8), UInt8(~len & 0xFF), UInt8(~len >> 8)]
            output += data[offset..<offset + length]
            offset += length
        } while offset < data.count
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return output + bigEndian(b << 16 | a)
    }

    /// A PNG chunk: length, type, data, and the CRC-32 of type and data.
    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    /// CRC-32 as PNG and zlib define it (ISO 3309, reflected polynomial 0xEDB88320).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
