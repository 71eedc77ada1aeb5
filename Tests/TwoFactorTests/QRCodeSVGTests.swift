import CQREncode
import Foundation
import Testing
import TwoFactor

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The SVG against libqrencode's own matrix: same size, same dark modules.
@Suite struct QRCodeSVGTests {
    static let url =
        "otpauth://totp/Gate%20House:ada%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
        + "&issuer=Gate%20House&algorithm=SHA1&digits=6&period=30"

    /// libqrencode's matrix for `text` with the parameters `QRCodeSVG` uses: width and bit 0 of each module.
    static func matrix(_ text: String) throws -> (width: Int, dark: [Bool]) {
        let code = try #require(QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1))
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let data = try #require(code.pointee.data)
        return (width, (0..<width * width).map { data[$0] & 1 == 1 })
    }

    @Test func isWellFormedScriptFreeSVG() throws {
        let svg = try QRCodeSVG.svg(for: Self.url)
        #expect(svg.hasPrefix("<svg"))
        #expect(svg.hasSuffix("</svg>"))
        #expect(svg.contains("viewBox=\"0 0 "))
        #expect(svg.contains("shape-rendering=\"crispEdges\""))
        #expect(svg.contains("role=\"img\""))
        #expect(svg.contains("aria-label=\"QR code\""))
        #expect(svg.contains("<rect "))
        #expect(!svg.lowercased().contains("script"))
        #expect(!svg.contains("GEZDGNBV"), "the secret is not in the markup")
        #expect(svg.components(separatedBy: "<path").count == 2, "one path")
        #expect(!svg.contains("d=\"\""))
        #if canImport(FoundationXML) || canImport(Darwin)
            let parser = XMLParser(data: Data(svg.utf8))
            #expect(parser.parse(), "\(String(describing: parser.parserError))")
        #endif
    }

    @Test(arguments: [(4, 4), (1, 0), (3, 2)])
    func pathDrawsExactlyLibqrencodesDarkModules(_ moduleSize: Int, _ quietZone: Int) throws {
        let (width, dark) = try Self.matrix(Self.url)
        let svg = try QRCodeSVG.svg(for: Self.url, moduleSize: moduleSize, quietZone: quietZone)
        let size = (width + 2 * quietZone) * moduleSize
        #expect(svg.contains("viewBox=\"0 0 \(size) \(size)\""))

        let d = try #require(svg.firstMatch(of: /<path fill="#000" d="([^"]+)"\/>/)).1
        #expect(!d.isEmpty)
        var drawn = [Bool](repeating: false, count: width * width)
        var runs = 0
        var rest = d[...]
        while !rest.isEmpty {
            let run = try #require(rest.prefixMatch(of: /M(\d+) (\d+)h(\d+)v(\d+)h-(\d+)z/))
            let (x, y, h, v, back) = (Int(run.1)!, Int(run.2)!, Int(run.3)!, Int(run.4)!, Int(run.5)!)
            #expect(v == moduleSize && back == h && h % moduleSize == 0 && h > 0)
            #expect(x % moduleSize == 0 && y % moduleSize == 0)
            let column = x / moduleSize - quietZone
            let row = y / moduleSize - quietZone
            for offset in 0..<h / moduleSize {
                let index = row * width + column + offset
                #expect(!drawn[index], "module drawn twice")
                drawn[index] = true
            }
            runs += 1
            rest = rest[run.range.upperBound...]
        }
        #expect(drawn.filter { $0 }.count == dark.filter { $0 }.count)
        #expect(drawn == dark)
        #expect(runs < dark.filter { $0 }.count, "horizontal runs are merged")
    }

    @Test func labelIsEscaped() throws {
        let svg = try QRCodeSVG.svg(for: "x", label: "Scan <\"this\"> & 'go'")
        #expect(svg.contains("aria-label=\"Scan &lt;&quot;this&quot;&gt; &amp; &apos;go&apos;\""))
    }

    @Test func refusesWhatCannotBeEncoded() {
        #expect(throws: QRCodeSVG.Failure.invalidDimensions) { try QRCodeSVG.svg(for: "x", moduleSize: 0) }
        #expect(throws: QRCodeSVG.Failure.invalidDimensions) { try QRCodeSVG.svg(for: "x", quietZone: -1) }
        #expect(throws: QRCodeSVG.Failure.embeddedNUL) { try QRCodeSVG.svg(for: "a\u{0}b") }
        #expect {
            try QRCodeSVG.svg(for: String(repeating: "x", count: 3000))
        } throws: { error in
            if case .encodingFailed = error as? QRCodeSVG.Failure { true } else { false }
        }
    }
}
