import AuthCore

/// The ways in an account has of its own — a password, passkeys — read at once, for answers that
/// describe the account (Descope's `me`), the forms that ask for a current password, and staff
/// about to delete a passkey that may be the last way in.
public struct AccountWaysIn: Sendable {
    public let password: Bool
    public let passkeys: Bool

    /// `signedIn`'s account's. Where Gatehouse cannot tell (a remote backend keeps the accounts) a
    /// password is assumed, as the forms always asked for one, and passkeys only where the server
    /// keeps them.
    public static func of(_ signedIn: SignedIn, in env: Accounts) async throws -> AccountWaysIn {
        try await of(signedIn.user.id, in: env)
    }

    /// Any account's (the console's user page).
    public static func of(_ id: UserID, in env: Accounts) async throws -> AccountWaysIn {
        let found = try await env.database.waysIn(userID: id)
        return AccountWaysIn(
            password: found?.password ?? true, passkeys: env.capabilities.contains(.passkeys) && found?.passkeys == true)
    }
}
