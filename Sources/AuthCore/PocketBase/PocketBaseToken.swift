import Foundation

/// The claims Gatehouse reads from a PocketBase JWT. The signature is not checked here: PocketBase
/// checks it on every call; the client only needs `exp` to refresh in time and `refreshable` to
/// know whether it may, and a verification token's `email` and `id`.
struct PocketBaseToken: Decodable, Sendable {
    var id: String?
    var type: String?
    var collectionId: String?
    var email: String?
    /// The address an email-change token moves its account to.
    var newEmail: String?
    var refreshable: Bool?
    var exp: Double?

    var expiresAt: Date? { exp.map { Date(timeIntervalSince1970: $0) } }

    /// The payload of `jwt`, or nil when it is not a JWT.
    static func decode(_ jwt: String) -> PocketBaseToken? {
        JWTPayload.decode(PocketBaseToken.self, from: jwt)
    }
}
