import Accounts
import AuthCore
import Foundation

/// A Gatehouse account as the core's `User` (CDI 5.x): one login method, of the recipe the answer
/// is about (`emailpassword` unless the route is passwordless's or thirdparty's, which names the
/// provider identity), whose recipe user id is the account's id; never a primary user (Gatehouse
/// links nothing across recipes).
struct SuperTokensUser: Encodable {
    let user: User
    var recipe = "emailpassword"
    /// The provider identity a thirdparty answer is about.
    var thirdParty: ThirdParty? = nil

    /// `{id: provider, userId: the provider's subject}`.
    struct ThirdParty: Encodable {
        var id: String
        var userId: String
    }

    enum CodingKeys: String, CodingKey {
        case id, timeJoined, isPrimaryUser, tenantIds, emails, phoneNumbers, thirdParty, webauthn, loginMethods
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let joined = Int(user.createdAt.timeIntervalSince1970 * 1000)
        try container.encode(user.id.rawValue, forKey: .id)
        try container.encode(joined, forKey: .timeJoined)
        try container.encode(false, forKey: .isPrimaryUser)
        try container.encode(["public"], forKey: .tenantIds)
        try container.encode([user.email], forKey: .emails)
        try container.encode([String](), forKey: .phoneNumbers)
        try container.encode(thirdParty.map { [$0] } ?? [], forKey: .thirdParty)
        try container.encode(["credentialIds": [String]()], forKey: .webauthn)
        try container.encode(
            [
                LoginMethod(
                    recipeId: recipe, recipeUserId: user.id.rawValue, tenantIds: ["public"], timeJoined: joined,
                    verified: user.emailVerified, email: user.email, thirdParty: thirdParty)
            ], forKey: .loginMethods)
    }

    struct LoginMethod: Encodable {
        var recipeId: String
        var recipeUserId: String
        var tenantIds: [String]
        var timeJoined: Int
        var verified: Bool
        var email: String
        var thirdParty: ThirdParty?
    }

    /// The account with the login method it has, as the core shows it: `passwordless` for an
    /// account without a password (made by a mailed code), `emailpassword` otherwise.
    static func of(_ user: User, in directory: UserDirectory) async throws -> SuperTokensUser {
        SuperTokensUser(user: user, recipe: try await directory.hasPassword(user.id) ? "emailpassword" : "passwordless")
    }

    var json: JSONValue {
        let data = (try? JSONEncoder().encode(self)) ?? Data("{}".utf8)
        return (try? JSONDecoder().decode(JSONValue.self, from: data)) ?? .null
    }
}
