import AuthCore
import OAuth
import Secrets
import SystemCrypto
import Testing

/// The signer's two ways in: claims as a dictionary, and claims already written as JSON text (a
/// Descope `refresh` writes its own, field by field). Same text, same token but for the signature.
@Suite struct ES256SignerTests {
    @Test func claimsWrittenAheadMakeTheSameTokenAsADictionary() throws {
        let signer = try ES256Signer(rawPrivateKey: try P256.SigningKey().rawScalar)
        let claims: [String: JSONValue] = ["sub": "u1", "exp": .number(1_800_000_000), "amr": .array(["pwd"])]
        var written = JSONObjectWriter()
        written.field("amr", .array(["pwd"]))
        written.field("exp", .number(1_800_000_000))
        written.field("sub", "u1")

        let fromDictionary = try signer.sign(claims)
        let fromText = try signer.sign(payload: written.finished())
        #expect(fromText.split(separator: ".").prefix(2) == fromDictionary.split(separator: ".").prefix(2))
        #expect(signer.claims(of: fromText) == claims)
        #expect(signer.claims(of: fromDictionary) == claims)

        // The signature covers the header and claims as sent: one changed byte is refused.
        var parts = fromText.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(#"{"amr":["pwd"],"exp":1800000000,"sub":"u2"}"#.utf8))
        #expect(signer.claims(of: parts.joined(separator: ".")) == nil)
    }
}
