import Testing

@testable import TwoFactor

/// The PNG read back by hand — signature, chunks and their CRCs, the stored deflate blocks — and
/// its pixels against libqrencode's own matrix.
@Suite struct QRCodePNGTests {
    @Test func crc32MatchesTheCheckValue() {
        // The CRC-32 (ISO 3309) of "123456789", the standard check value.
        #expect(QRCodePNG.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(QRCodePNG.crc32(Array("IEND".utf8)) == 0xAE42_6082)
    }

    @Test func storedBlocksCarryEveryByte() throws {
        let data = (0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(try Self.inflateStored(QRCodePNG.zlibStored(data)) == data)
        #expect(try Self.inflateStored(QRCodePNG.zlibStored([])) == [])
    }

    @Test(arguments: [(4, 4), (1, 0), (3, 2)])
    func pixelsAreLibqrencodesModules(_ moduleSize: Int, _ quietZone: Int) throws {
        let (width, dark) = try QRCodeSVGTests.matrix(QRCodeSVGTests.url)
        let png = try QRCodePNG.png(for: QRCodeSVGTests.url, moduleSize: moduleSize, quietZone: quietZone)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var chunks: [(String, [UInt8])] = []
        var at = 8
        while at < png.count {
            let length = Int(Self.uint32(png, at))
            let body = Array(png[at + 4..<at + 8 + length])
            #expect(Self.uint32(png, at + 8 + length) == QRCodePNG.crc32(body))
            chunks.append((String(decoding: body.prefix(4), as: UTF8.self), Array(body.dropFirst(4))))
            at += 12 + length
        }
        #expect(chunks.map(\.0) == ["IHDR", "IDAT", "IEND"])
        let size = (width + 2 * quietZone) * moduleSize
        #expect(Self.uint32(chunks[0].1, 0) == UInt32(size) && Self.uint32(chunks[0].1, 4) == UInt32(size))
        #expect(Array(chunks[0].1.suffix(5)) == [1, 0, 0, 0, 0])
        let rows = try Self.inflateStored(chunks[1].1)
        let rowBytes = (size + 7) / 8
        #expect(rows.count == size * (rowBytes + 1))
        for y in 0..<size {
            #expect(rows[y * (rowBytes + 1)] == 0, "filter None")
            for x in 0..<size {
                let byte = rows[y * (rowBytes + 1) + 1 + x / 8]
                let black = byte & (0x80 >> UInt8(x % 8)) == 0
                let (mx, my) = (x / moduleSize - quietZone, y / moduleSize - quietZone)
                let expected = (0..<width).contains(mx) && (0..<width).contains(my) && dark[my * width + mx]
                guard black == expected else {
                    Issue.record("pixel (\(x), \(y)) is \(black ? "black" : "white")")
                    return
                }
            }
        }
    }

    private static func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A zlib stream of stored blocks, unpacked, its Adler-32 checked.
    private static func inflateStored(_ stream: [UInt8]) throws -> [UInt8] {
        #expect(stream.count >= 6 && (UInt16(stream[0]) << 8 | UInt16(stream[1])) % 31 == 0)
        var at = 2
        var output: [UInt8] = []
        while true {
            let header = stream[at]
            try #require(header & 0b110 == 0, "a stored block")
            let length = Int(stream[at + 1]) | Int(stream[at + 2]) << 8
            let inverse = Int(stream[at + 3]) | Int(stream[at + 4]) << 8
            #expect(length ^ inverse == 0xFFFF)
            output += stream[at + 5..<at + 5 + length]
            at += 5 + length
            if header & 1 == 1 { break }
        }
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in output {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        #expect(uint32(stream, at) == b << 16 | a)
        return output
    }
}
