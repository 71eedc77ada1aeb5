import AuthCore
import Foundation
import HTTPServer

/// A signed-in person changing their own profile — the account page's form, InsForge's
/// `profiles/current`, PocketBase's owner `records` update — through the seam as the owner, with
/// one audit shape (`profile.updated` naming the keys, never their values).
public struct ProfileUpdate: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("insforge-api", "pocketbase-api"); nil for the pages.
    let via: String?

    public init(env: Accounts, via: String?) { (self.env, self.via) = (env, via) }

    /// Applies `patch` (a null value removes a key) to `signedIn`'s profile over `session` (the
    /// signed-in one unless the caller just renewed it); throws `.validation` for keys the backend refuses.
    public func apply(_ patch: [String: JSONValue], of signedIn: SignedIn, session: AuthSession? = nil, request: Request)
        async throws -> User
    {
        let user = try await env.backend.setProfile(patch, session: session ?? signedIn.backendSession)
        await env.audit.recordOwnAct(
            .profileUpdated, of: signedIn, request: request,
            data: AuditTrail.data(["keys": .array(patch.keys.sorted().map(JSONValue.string))], via: via))
        return user
    }
}
