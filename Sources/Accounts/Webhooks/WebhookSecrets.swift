import Foundation
import Secrets
import Store

/// Endpoints' `whsec_` secrets: made from 24 random bytes, kept sealed under a key derived from
/// the key file (as the signing keys are: a copy of the database alone signs nothing).
struct WebhookSecrets: Sendable {
    let box: SecretBox
    let clock: @Sendable () -> Date

    /// A new secret, `whsec_` and the base64 of 24 random bytes.
    static func generate() -> String {
        "whsec_" + Data(SecureRandom.bytes(24)).base64EncodedString()
    }

    func sealed(_ secret: String) -> [UInt8] { box.seal(secret) }

    /// The endpoint's current secret.
    func current(_ endpoint: WebhookEndpointRecord) throws -> String { try box.open(endpoint.secret) }

    /// The secrets a request to `endpoint` is signed with now: the current one, and the previous
    /// one while its overlap lasts.
    func opened(_ endpoint: WebhookEndpointRecord) throws -> [String] {
        var secrets = [try box.open(endpoint.secret)]
        if let previous = endpoint.previousSecret, let until = endpoint.previousUntil, until > clock() {
            secrets.append(try box.open(previous))
        }
        return secrets
    }
}
