import Crypto
import Foundation
import OAuth
import Secrets

/// Signs ES256 JWTs with a key made for the test, and publishes its JWKS.
struct TestSigner {
    let key = P256.Signing.PrivateKey()
    let kid: String

    init(kid: String = "test-key") { self.kid = kid }

    var jwks: JSONWebKeySet { JSONWebKeySet(keys: [JSONWebKey(p256: key.publicKey, kid: kid)]) }

    func sign(_ claims: [String: Any], alg: String = "ES256") throws -> String {
        let header = try JSONSerialization.data(withJSONObject: ["alg": alg, "kid": kid, "typ": "JWT"], options: [.sortedKeys])
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let input = Base64URL.encode(Array(header)) + "." + Base64URL.encode(Array(payload))
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }
}
