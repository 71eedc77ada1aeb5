import Foundation
import OAuth
import Secrets
import Testing

/// `StrictBase64URL` against Foundation's base64 decoder (the library one): it takes exactly the
/// texts that are the one unpadded base64url spelling of some bytes, and reads them as Foundation does.
@Suite struct StrictBase64URLTests {
    /// Foundation's reading of base64url `text`: the URL alphabet mapped back, padding added.
    private func library(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if !text.contains("=") { standard += String(repeating: "=", count: (4 - standard.count % 4) % 4) }
        return Data(base64Encoded: standard).map(Array.init)
    }

    @Test func everyEncodingReadsBackAsTheLibraryReadsIt() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let text = Base64URL.encode(bytes)
            #expect(StrictBase64URL.decode(text) == bytes)
            #expect(library(text) == bytes)
        }
    }

    /// Random texts over the alphabet, `=` and a few strangers: taken exactly when the library reads
    /// them to bytes whose one spelling they are, and then to the same bytes.
    @Test func itTakesOnlyTheOneSpellingTheLibraryReadsTheSame() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ .")
        var generator = SystemRandomNumberGenerator()
        var taken = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...12, using: &generator)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "A" })
            let strict = StrictBase64URL.decode(text)
            let canonical = library(text).flatMap { Base64URL.encode($0) == text ? $0 : nil }
            #expect(
                strict == canonical, "\(text): strict \(String(describing: strict)), library \(String(describing: canonical))")
            if strict != nil { taken += 1 }
        }
        #expect(taken > 1000, "the sample held too few spellings to compare")
    }

    @Test func paddingAndNonCanonicalLastCharactersAreRefused() {
        for text in ["QQ==", "QQ=", "QUI=", "QR", "QUJ", "Q", "QUJD=", "=QUJD", "QU JD"] {
            #expect(StrictBase64URL.decode(text) == nil, "\(text)")
        }
        #expect(StrictBase64URL.decode("QQ") == [0x41] && StrictBase64URL.decode("QUI") == [0x41, 0x42])
    }
}
