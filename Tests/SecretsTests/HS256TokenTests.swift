import Foundation
import Secrets
import Testing

@Suite struct HS256TokenTests {
    private let key = Array(UInt8(0)..<32)

    @Test func signsAsAnyJWTLibraryDoes() throws {
        // The expected token was made with Python's hmac/hashlib over the same header and payload.
        let token = try HS256Token(key: key).sign(payload: Data(#"{"id":"abc","exp":1}"#.utf8))
        #expect(
            token
                == "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpZCI6ImFiYyIsImV4cCI6MX0.VgmLniuFdS6mYsax1Ipw1dn8s6JcPd9gZes_mFMeTaQ"
        )
        #expect(try HS256Token(key: key).verify(token) == Data(#"{"id":"abc","exp":1}"#.utf8))
    }

    @Test func refusesAlteredForeignAndUnsignedTokens() throws {
        let signer = try HS256Token(key: key)
        let token = signer.sign(payload: Data(#"{"id":"abc"}"#.utf8))
        let parts = token.split(separator: ".").map(String.init)
        let otherPayload = Base64URL.encode(Array(#"{"id":"xyz"}"#.utf8))
        #expect(signer.verify([parts[0], otherPayload, parts[2]].joined(separator: ".")) == nil, "altered payload")
        #expect(try HS256Token(key: Array(repeating: 7, count: 32)).verify(token) == nil, "another key")
        let none = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        #expect(signer.verify([none, parts[1], ""].joined(separator: ".")) == nil, "alg none")
        #expect(signer.verify("not a token") == nil)
        #expect(signer.verify(token + ".extra") == nil)
        #expect(signer.verify(token + ".") == nil)
        #expect(signer.verify(parts[0] + "." + parts[1]) == nil, "no signature part")
        // The signature's last character carries 4 unused bits: flipping one names the same bytes
        // to a lenient decoder, and is still refused here.
        let last = parts[2].last!
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let twin = alphabet[alphabet.firstIndex(of: last)! ^ 1]
        #expect(
            signer.verify(parts[0] + "." + parts[1] + "." + parts[2].dropLast() + String(twin)) == nil, "non-canonical signature")
        #expect(throws: SecretsError.invalidKeyLength(5)) { try HS256Token(key: [1, 2, 3, 4, 5]) }
    }
}
