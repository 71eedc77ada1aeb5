import Foundation
import HTTPServer
import HTTPTestClient
import OAuth
import Secrets
import SystemCrypto
import TestScope
import Testing

/// `POST /api/auth/apple/native` with ES256 identity tokens made here and a JWKS served on loopback.
@Suite(.stopsWhatItStarts) struct AppleNativeTests {
    let key: P256.SigningKey

    init() throws { key = try P256.SigningKey() }

    private func token(_ changes: [String: Any] = [:], nonce: String = "raw-nonce", signer: P256.SigningKey? = nil) throws
        -> String
    {
        var claims: [String: Any] = [
            "iss": "https://appleid.apple.com", "aud": "com.example.app", "sub": "001234.apple-user",
            "exp": Date().timeIntervalSince1970 + 600, "iat": Date().timeIntervalSince1970,
            "email": "apple-user@privaterelay.appleid.com", "email_verified": "true",
            "nonce": Hex.encode(try SHA256.digest(nonce.utf8))
        ]
        for (name, value) in changes { claims[name] = value }
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "kid": "apple-test"], options: [.sortedKeys])
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let input = Base64URL.encode(Array(header)) + "." + Base64URL.encode(Array(payload))
        return input + "." + Base64URL.encode(try (signer ?? key).signature(for: Array(input.utf8)))
    }

    private func post(_ gatehouse: OAuthGatehouse, _ body: [String: Any]) async throws -> TestResponse {
        try await HTTPTestClient(port: gatehouse.port).request(
            "POST", "/api/auth/apple/native?client_type=mobile", headers: [("Content-Type", "application/json")],
            body: Array(try JSONSerialization.data(withJSONObject: body)))
    }

    private func setUp() async throws -> (OAuthGatehouse, LoopbackPeer) {
        let jwks = try JSONEncoder().encode(JSONWebKeySet(keys: [JSONWebKey(p256: key.publicKey, kid: "apple-test")]))
        let peer = try LoopbackPeer { router in
            router.get("/auth/keys") { _, _ in .json(raw: Array(jwks)) }
        }
        let gatehouse = try await OAuthGatehouse(appleJWKSURL: "http://127.0.0.1:\(peer.port)/auth/keys")
        return (gatehouse, peer)
    }

    @Test func aGoodTokenCreatesTheUserAndKeepsTheFirstName() async throws {
        let (gatehouse, peer) = try await setUp()
        let first = try await post(
            gatehouse,
            [
                "identityToken": try token(), "authorizationCode": "c1", "nonce": "raw-nonce",
                "user": ["name": ["firstName": "Ada", "lastName": "Apple"], "email": "apple-user@privaterelay.appleid.com"]
            ])
        #expect(first.status == 200, "\(first.text)")
        let user = try #require(first.json["user"] as? [String: Any])
        #expect(user["email"] as? String == "apple-user@privaterelay.appleid.com")
        #expect((user["profile"] as? [String: Any])?["name"] as? String == "Ada Apple")
        #expect(user["providers"] as? [String] == ["apple"])
        #expect(first.json["accessToken"] is String && first.json["refreshToken"] is String)

        // Later sign-ins: Apple sends no name (or a different one); the account keeps the first.
        let again = try await post(
            gatehouse,
            [
                "identityToken": try token(), "authorizationCode": "c2", "nonce": "raw-nonce",
                "user": ["name": ["firstName": "Mallory"]]
            ])
        #expect(again.status == 200)
        let same = try #require(again.json["user"] as? [String: Any])
        #expect(same["id"] as? String == user["id"] as? String)
        #expect((same["profile"] as? [String: Any])?["name"] as? String == "Ada Apple")
        await gatehouse.stop()
        await peer.stop()
    }

    @Test func refusesWrongAudienceNonceExpiryAndSigner() async throws {
        let (gatehouse, peer) = try await setUp()
        let cases: [(String, [String: Any])] = [
            ("wrong audience", ["identityToken": try token(["aud": "com.evil.app"]), "nonce": "raw-nonce"]),
            ("wrong nonce", ["identityToken": try token(), "nonce": "another-nonce"]),
            ("expired", ["identityToken": try token(["exp": Date().timeIntervalSince1970 - 3600]), "nonce": "raw-nonce"]),
            ("other signer", ["identityToken": try token(signer: P256.SigningKey()), "nonce": "raw-nonce"]),
            ("other issuer", ["identityToken": try token(["iss": "https://evil.example"]), "nonce": "raw-nonce"])
        ]
        for (label, body) in cases {
            let response = try await post(gatehouse, body.merging(["authorizationCode": "c"]) { $1 })
            #expect(response.status == 401, "\(label): \(response.text)")
            #expect(response.json["error"] as? String == "AUTH_INVALID_APPLE_TOKEN", "\(label)")
        }
        #expect(try await gatehouse.database.user(email: "apple-user@privaterelay.appleid.com") == nil)
        await gatehouse.stop()
        await peer.stop()
    }

    /// Issue 9, item 9: a captured identity token signs in once, and one dated ahead is refused.
    @Test func refusesAReplayedTokenAReusedJTIAndAFutureIssueTime() async throws {
        let (gatehouse, peer) = try await setUp()
        let captured = try token()
        let body: [String: Any] = ["identityToken": captured, "authorizationCode": "c", "nonce": "raw-nonce"]
        #expect(try await post(gatehouse, body).status == 200)
        let replay = try await post(gatehouse, body)
        #expect(replay.status == 401, "the same token signed in twice: \(replay.text)")
        #expect(replay.json["error"] as? String == "AUTH_INVALID_APPLE_TOKEN")

        let first = try await post(gatehouse, ["identityToken": try token(["jti": "id-1"]), "nonce": "raw-nonce"])
        #expect(first.status == 200, "\(first.text)")
        // Re-signed (ES256 signatures differ each time) but the same token id: still a replay.
        let reused = try await post(gatehouse, ["identityToken": try token(["jti": "id-1"]), "nonce": "raw-nonce"])
        #expect(reused.status == 401, "\(reused.text)")

        let future = try await post(
            gatehouse, ["identityToken": try token(["iat": Date().timeIntervalSince1970 + 3600]), "nonce": "raw-nonce"])
        #expect(future.status == 401, "an iat an hour ahead was accepted: \(future.text)")
        let skewed = try await post(
            gatehouse, ["identityToken": try token(["iat": Date().timeIntervalSince1970 + 30]), "nonce": "raw-nonce"])
        #expect(skewed.status == 200, "30 s of clock skew is within the leeway: \(skewed.text)")
        await gatehouse.stop()
        await peer.stop()
    }

    /// Issue 42, item 3: replay was keyed on the token's text, and the text has other spellings —
    /// the signature's twin (r, n − s), which verifies too, `=` padding the lenient decoder skipped, a
    /// new signature over the same claims (no `jti`: the issuer, subject, `iat` and nonce name it). Each signed in again; the claims are the token's meaning.
    @Test func anotherSpellingOfASpentTokenIsStillAReplay() async throws {
        let (gatehouse, peer) = try await setUp()
        let now = Date().timeIntervalSince1970.rounded(.down)
        let claims: [String: Any] = ["iat": now]
        let captured = try token(claims)
        #expect(try await post(gatehouse, ["identityToken": captured, "nonce": "raw-nonce"]).status == 200)
        let spellings = [
            ("twin signature", try TokenSpellingAttackTests.twin(of: captured)),
            ("padded signature", captured + "="), ("signed again", try token(claims))
        ]
        for (name, spelling) in spellings {
            let again = try await post(gatehouse, ["identityToken": spelling, "nonce": "raw-nonce"])
            #expect(again.status == 401, "\(name) signed in again: \(again.text)")
        }
        await gatehouse.stop()
        await peer.stop()
    }
}
