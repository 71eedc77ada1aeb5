import Foundation
import OAuth
import Secrets
import SystemCrypto
import Testing

@Suite struct IDTokenVerifierTests {
    let signer: TestSigner
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let verifier = IDTokenVerifier(issuer: "https://issuer.test", audiences: ["client-1"])

    init() throws { signer = try TestSigner() }

    func claims(_ changes: [String: Any] = [:]) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": "https://issuer.test", "sub": "user-1", "aud": "client-1",
            "exp": now.timeIntervalSince1970 + 300, "iat": now.timeIntervalSince1970,
            "nonce": "n-1", "email": "a@example.com", "email_verified": true
        ]
        for (key, value) in changes { claims[key] = value }
        return claims
    }

    @Test func acceptsAGoodToken() throws {
        let token = try verifier.verify(try signer.sign(claims()), keys: signer.jwks, nonce: .equals("n-1"), now: now)
        #expect(token.subject == "user-1")
        #expect(token.email == "a@example.com" && token.emailVerified)
    }

    @Test func refusesASignatureFromAnotherKey() throws {
        let other = try TestSigner(kid: "test-key")
        #expect(throws: IDTokenError.badSignature) {
            try verifier.verify(try other.sign(claims()), keys: signer.jwks, nonce: .equals("n-1"), now: now)
        }
    }

    @Test func refusesATamperedPayload() throws {
        let token = try signer.sign(claims())
        let parts = token.split(separator: ".").map(String.init)
        let forged = try JSONSerialization.data(withJSONObject: claims(["sub": "admin"]), options: [.sortedKeys])
        let tampered = [parts[0], Base64URL.encode(Array(forged)), parts[2]].joined(separator: ".")
        #expect(throws: IDTokenError.badSignature) {
            try verifier.verify(tampered, keys: signer.jwks, nonce: .equals("n-1"), now: now)
        }
    }

    @Test func refusesWrongAudienceIssuerNonceAndExpiry() throws {
        #expect(throws: IDTokenError.wrongAudience) {
            try verifier.verify(
                try signer.sign(claims(["aud": "someone-else"])), keys: signer.jwks, nonce: .equals("n-1"), now: now)
        }
        #expect(throws: IDTokenError.wrongAudience) {
            try verifier.verify(
                try signer.sign(claims(["aud": ["client-1", "evil"]])), keys: signer.jwks, nonce: .equals("n-1"), now: now)
        }
        #expect(throws: IDTokenError.wrongIssuer) {
            try verifier.verify(
                try signer.sign(claims(["iss": "https://evil.test"])), keys: signer.jwks, nonce: .equals("n-1"), now: now)
        }
        #expect(throws: IDTokenError.wrongNonce) {
            try verifier.verify(try signer.sign(claims()), keys: signer.jwks, nonce: .equals("n-2"), now: now)
        }
        #expect(throws: IDTokenError.expired) {
            try verifier.verify(
                try signer.sign(claims(["exp": now.timeIntervalSince1970 - 120])), keys: signer.jwks,
                nonce: .equals("n-1"), now: now)
        }
    }

    @Test func refusesAlgorithmsOutsideTheAllowList() throws {
        let header = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8))
        let payload = Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: claims())))
        #expect(throws: IDTokenError.unsupportedAlgorithm("none")) {
            try verifier.verify("\(header).\(payload).", keys: signer.jwks, nonce: .equals("n-1"), now: now)
        }
        #expect(throws: IDTokenError.unsupportedAlgorithm("HS256")) {
            try verifier.verify(try signer.sign(claims(), alg: "HS256"), keys: signer.jwks, nonce: .equals("n-1"), now: now)
        }
    }

    @Test func appleNonceIsTheSHA256OfTheRawNonce() throws {
        let hashed = Hex.encode(try SHA256.digest("raw-nonce".utf8))
        let token = try signer.sign(claims(["nonce": hashed]))
        #expect(try verifier.verify(token, keys: signer.jwks, nonce: .sha256Of("raw-nonce"), now: now).subject == "user-1")
        #expect(throws: IDTokenError.wrongNonce) {
            try verifier.verify(token, keys: signer.jwks, nonce: .sha256Of("other"), now: now)
        }
    }
}
