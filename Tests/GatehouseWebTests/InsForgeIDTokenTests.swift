import Foundation
import HTTPServer
import HTTPTestClient
import OAuth
import Secrets
import SystemCrypto
import TestScope
import Testing

/// `POST /api/auth/id-token` with RS256 ID tokens signed by RSA keys made here and published in a
/// JWKS on loopback, as Google and Apple publish theirs.
@Suite(.stopsWhatItStarts) struct InsForgeIDTokenTests {
    static let googleClient = "1234-web.apps.googleusercontent.com"
    let key: RSA.SigningKey

    init() throws { key = try RSA.SigningKey(bits: 2048) }

    private static func jwk(_ key: RSA.SigningKey, kid: String) -> JSONWebKey {
        JSONWebKey(
            kty: "RSA", kid: kid, use: "sig", alg: "RS256", n: Base64URL.encode(key.publicKey.modulus),
            e: Base64URL.encode(key.publicKey.exponent))
    }

    private func token(_ claims: [String: Any], signer: RSA.SigningKey? = nil, kid: String = "google-test") throws
        -> String
    {
        let header = try JSONSerialization.data(
            withJSONObject: ["alg": "RS256", "kid": kid, "typ": "JWT"], options: [.sortedKeys])
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let input = Base64URL.encode(Array(header)) + "." + Base64URL.encode(Array(payload))
        return input + "." + Base64URL.encode(try (signer ?? key).pkcs1v15SHA256Signature(for: Array(input.utf8)))
    }

    private func google(_ changes: [String: Any] = [:], signer: RSA.SigningKey? = nil) throws -> String {
        var claims: [String: Any] = [
            "iss": "https://accounts.google.com", "aud": Self.googleClient, "sub": "10769150350006150715113082367",
            "email": "grace@gmail.example", "email_verified": true, "name": "Grace Hopper",
            "iat": Int(Date().timeIntervalSince1970), "exp": Int(Date().timeIntervalSince1970) + 600
        ]
        for (name, value) in changes { claims[name] = value }
        return try token(claims, signer: signer)
    }

    private func apple(_ changes: [String: Any] = [:], nonce: String = "raw-nonce") throws -> String {
        var claims: [String: Any] = [
            "iss": "https://appleid.apple.com", "aud": "com.example.app", "sub": "001234.rsa-apple-user",
            "email": "apple-rsa@privaterelay.appleid.com", "email_verified": "true",
            "nonce": Hex.encode(try SHA256.digest(nonce.utf8)),
            "iat": Int(Date().timeIntervalSince1970), "exp": Int(Date().timeIntervalSince1970) + 600
        ]
        for (name, value) in changes { claims[name] = value }
        return try token(claims, kid: "apple-rsa")
    }

    private func post(_ gatehouse: OAuthGatehouse, _ body: [String: Any], clientType: String = "mobile") async throws
        -> TestResponse
    {
        try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/api/auth/id-token?client_type=\(clientType)",
            headers: [("Content-Type", "application/json"), ("Authorization", "Bearer anon_app_key")],
            body: Array(try JSONSerialization.data(withJSONObject: body)))
    }

    /// Gatehouse with Google's and Apple's JWKS served on loopback by one peer.
    private func setUp() async throws -> (OAuthGatehouse, LoopbackPeer) {
        let jwks = try JSONEncoder().encode(
            JSONWebKeySet(keys: [Self.jwk(key, kid: "google-test"), Self.jwk(key, kid: "apple-rsa")]))
        let peer = try LoopbackPeer { router in
            router.get("/oauth2/v3/certs") { _, _ in .json(raw: Array(jwks)) }
            router.get("/auth/keys") { _, _ in .json(raw: Array(jwks)) }
        }
        let gatehouse = try await OAuthGatehouse(
            appleJWKSURL: "http://127.0.0.1:\(peer.port)/auth/keys",
            googleJWKSURL: "http://127.0.0.1:\(peer.port)/oauth2/v3/certs", googleAudiences: [Self.googleClient])
        return (gatehouse, peer)
    }

    @Test func aGoogleTokenSignsInAndTheSessionWorks() async throws {
        let (gatehouse, peer) = try await setUp()
        let signedIn = try await post(gatehouse, ["provider": "google", "token": try google()])
        #expect(signedIn.status == 200, "\(signedIn.text)")
        let user = try #require(signedIn.json["user"] as? [String: Any])
        #expect(user["email"] as? String == "grace@gmail.example")
        #expect(user["providers"] as? [String] == ["google"])
        #expect((user["profile"] as? [String: Any])?["name"] as? String == "Grace Hopper")
        let access = try #require(signedIn.json["accessToken"] as? String)
        #expect(signedIn.json["refreshToken"] is String)
        let current = try await HTTPTestClient(port: gatehouse.port).request(
            "GET", "/api/auth/sessions/current", headers: [("Authorization", "Bearer \(access)")])
        #expect((current.json["user"] as? [String: Any])?["id"] as? String == user["id"] as? String)

        // Google's other issuer spelling, a bound nonce, and the same account again.
        let again = try await post(
            gatehouse,
            ["provider": "google", "token": try google(["iss": "accounts.google.com", "nonce": "n-1"]), "nonce": "n-1"])
        #expect(again.status == 200, "\(again.text)")
        #expect((again.json["user"] as? [String: Any])?["id"] as? String == user["id"] as? String)
        await gatehouse.stop()
        await peer.stop()
    }

    @Test func anAppleRS256TokenSignsInWithItsRawNonce() async throws {
        let (gatehouse, peer) = try await setUp()
        let signedIn = try await post(
            gatehouse, ["provider": "apple", "token": try apple(), "nonce": "raw-nonce", "name": "Ada Apple"])
        #expect(signedIn.status == 200, "\(signedIn.text)")
        let user = try #require(signedIn.json["user"] as? [String: Any])
        #expect(user["email"] as? String == "apple-rsa@privaterelay.appleid.com")
        #expect((user["profile"] as? [String: Any])?["name"] as? String == "Ada Apple")
        let missingNonce = try await post(gatehouse, ["provider": "apple", "token": try apple()])
        #expect(missingNonce.status == 400 && missingNonce.json["error"] as? String == "INVALID_INPUT", "\(missingNonce.text)")
        await gatehouse.stop()
        await peer.stop()
    }

    @Test func refusesWrongAudienceIssuerExpiryKeyNonceAndReplay() async throws {
        let (gatehouse, peer) = try await setUp()
        let now = Int(Date().timeIntervalSince1970)
        let otherKey = try RSA.SigningKey(bits: 2048)
        let captured = try google(["sub": "replayed-subject", "email": "replay@gmail.example"])
        #expect(try await post(gatehouse, ["provider": "google", "token": captured]).status == 200)
        let cases: [(String, [String: Any])] = [
            ("wrong audience", ["provider": "google", "token": try google(["aud": "someone-else.apps.googleusercontent.com"])]),
            ("audience the caller names", ["provider": "google", "token": try google(["aud": ["evil", Self.googleClient]])]),
            ("wrong issuer", ["provider": "google", "token": try google(["iss": "https://evil.example"])]),
            (
                "Apple's issuer on a Google token",
                ["provider": "google", "token": try google(["iss": "https://appleid.apple.com"])]
            ),
            ("expired", ["provider": "google", "token": try google(["exp": now - 3600])]),
            ("issued in the future", ["provider": "google", "token": try google(["iat": now + 3600])]),
            ("another key", ["provider": "google", "token": try google(signer: otherKey)]),
            ("tampered payload", ["provider": "google", "token": try tampered(try google())]),
            ("alg none", ["provider": "google", "token": try unsigned()]),
            ("nonce in token, none sent", ["provider": "google", "token": try google(["nonce": "n-2"])]),
            ("wrong nonce", ["provider": "google", "token": try google(["nonce": "n-2"]), "nonce": "n-3"]),
            ("Apple wrong nonce", ["provider": "apple", "token": try apple(), "nonce": "another-nonce"]),
            ("Apple audience", ["provider": "apple", "token": try apple(["aud": "com.evil.app"]), "nonce": "raw-nonce"]),
            ("a Google token as Apple", ["provider": "apple", "token": try google(), "nonce": "raw-nonce"]),
            ("replayed", ["provider": "google", "token": captured])
        ]
        for (label, body) in cases {
            let response = try await post(gatehouse, body)
            #expect(response.status == 401, "\(label): \(response.text)")
            #expect(response.json["error"] as? String == "AUTH_UNAUTHORIZED", "\(label)")
            #expect(response.json["statusCode"] as? Int == 401 && response.json["message"] is String, "\(label)")
        }
        #expect(try await gatehouse.database.user(email: "grace@gmail.example") == nil, "no refused token made an account")
        await gatehouse.stop()
        await peer.stop()
    }

    @Test func googleWithoutAConfiguredClientIDIsRefusedAsConfiguration() async throws {
        let gatehouse = try await OAuthGatehouse()
        let response = try await post(gatehouse, ["provider": "google", "token": try google()])
        #expect(response.status == 400 && response.json["error"] as? String == "PROVIDER_NOT_CONFIGURED", "\(response.text)")
        await gatehouse.stop()
    }

    /// The token with its payload's email swapped (signature left as it was).
    private func tampered(_ token: String) throws -> String {
        let parts = token.split(separator: ".").map(String.init)
        let payloadBytes = try #require(Base64URL.decode(parts[1]))
        var claims = try #require(try JSONSerialization.jsonObject(with: Data(payloadBytes)) as? [String: Any])
        claims["email"] = "mallory@gmail.example"
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        return [parts[0], Base64URL.encode(Array(payload)), parts[2]].joined(separator: ".")
    }

    private func unsigned() throws -> String {
        let header = try JSONSerialization.data(withJSONObject: ["alg": "none"])
        let parts = try google().split(separator: ".").map(String.init)
        return Base64URL.encode(Array(header)) + "." + parts[1] + "."
    }
}
