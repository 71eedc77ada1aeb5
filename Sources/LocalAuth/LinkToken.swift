import AuthCore
import Foundation
import Secrets

/// The secret inside a mailed link: a JWT with the claims PocketBase puts in its own link tokens
/// (`id`, `email`, `collectionId`, `type`, `exp`) plus 256 random bits (`jti`), signed under a key
/// derived from the server key. SDKs that read a link token's claims (PocketBase's client core
/// backend, BosBase's `confirmVerification`) find what they expect; Gatehouse itself only ever
/// looks the token up by its keyed hash, as any link secret.
enum LinkToken {
    /// What proving the link achieves, in PocketBase's words.
    enum Purpose: String {
        case verification
        case passwordReset
        case emailChange
    }

    private struct Claims: Encodable {
        var collectionId = "_pb_users_auth_"
        var email: String
        var exp: Int
        var id: String
        var jti: String
        var type: String
        var newEmail: String?
    }

    static func make(
        _ purpose: Purpose, userID: UserID, email: String, expiresAt: Date, newEmail: String? = nil, signer: HS256Token
    ) -> String {
        let claims = Claims(
            email: email, exp: Int(expiresAt.timeIntervalSince1970), id: userID.rawValue, jti: SecureRandom.token(),
            type: purpose.rawValue, newEmail: newEmail)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return signer.sign(payload: (try? encoder.encode(claims)) ?? Data())
    }
}
