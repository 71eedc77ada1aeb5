import Foundation
import OAuth
import Secrets
import SystemCrypto

/// Signs ES256 JWTs with a key made for the test, and publishes its JWKS.
struct TestSigner {
    let key: P256.SigningKey
    let kid: String

    init(kid: String = "test-key") throws {
        key = try P256.SigningKey()
        self.kid = kid
    }

    var jwks: JSONWebKeySet { JSONWebKeySet(keys: [JSONWebKey(p256: key.publicKey, kid: kid)]) }

    func sign(_ claims: [String: Any], alg: String = "ES256") throws -> String {
        let header = try JSONSerialization.data(withJSONObject: ["alg": alg, "kid": kid, "typ": "JWT"], options: [.sortedKeys])
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let input = Base64URL.encode(Array(header)) + "." + Base64URL.encode(Array(payload))
        return input + "." + Base64URL.encode(try key.signature(for: Array(input.utf8)))
    }
}
