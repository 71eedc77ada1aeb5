import Foundation
import Secrets

/// The browser's record of a ceremony (`clientDataJSON`, WebAuthn §5.8.1): what it was for, the
/// challenge it answered and the page it ran in. The bytes are hashed as sent; only these members
/// are read.
public struct ClientData: Sendable, Equatable, Decodable {
    public var type: String
    /// base64url, as the browser encoded the challenge it was given.
    public var challenge: String
    public var origin: String
    public var crossOrigin: Bool?

    /// The two ceremonies' `type` values.
    public static let create = "webauthn.create", get = "webauthn.get"
    /// clientDataJSON is a few hundred bytes; more is refused unread.
    public static let maxLength = 4096

    public init(json: [UInt8]) throws(WebAuthnError) {
        guard json.count <= Self.maxLength else { throw .malformed("clientDataJSON is too long") }
        do { self = try JSONDecoder().decode(ClientData.self, from: Data(json)) } catch {
            throw .malformed("clientDataJSON is not the expected JSON")
        }
    }

    /// §7.1 steps 7–10 and §7.2 steps 11–14: the type, the challenge (compared as text: the
    /// browser writes it base64url without padding), an allowed origin, not cross-origin.
    public func check(type expected: String, challenge: [UInt8], origins: Set<String>) throws(WebAuthnError) {
        guard type == expected else { throw .wrongCeremony(expected: expected) }
        guard KeyedHash.constantTimeEquals(Array(self.challenge.utf8), Array(Base64URL.encode(challenge).utf8)) else {
            throw .challengeMismatch
        }
        guard origins.contains(origin) else { throw .originNotAllowed(origin) }
        guard crossOrigin != true else { throw .crossOrigin }
    }
}
