import AuthCore
import Foundation
import HTTPServer

/// What an app keeps on a signed-in person's account apart from the profile (the Rownd SDK's
/// `meta`: the app's own bookkeeping, never shown on the account pages): read and merged by the
/// person's own session, audited as `profile.updated` naming the keys (`part: meta`), never their values.
public struct AppUserMeta: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data.
    let via: String

    public init(env: Accounts, via: String) { (self.env, self.via) = (env, via) }

    /// The account's meta; empty when the app kept none.
    public func meta(of signedIn: SignedIn) async throws -> [String: JSONValue] {
        try await env.database.appUserMeta(userID: signedIn.user.id.rawValue)
    }

    /// The most an account's meta may hold, as stored JSON: bookkeeping, not a file store.
    static let maximumBytes = 16 * 1024

    /// Merges `patch` into the account's meta (a null value removes a key); the meta after (an
    /// empty patch changes and records nothing).
    /// Throws `.validation` when the result would outgrow `maximumBytes` (nothing is written).
    public func merge(_ patch: [String: JSONValue], of signedIn: SignedIn, request: Request) async throws -> [String: JSONValue] {
        guard !patch.isEmpty else { return try await meta(of: signedIn) }
        let meta = try await env.database.mergeAppUserMeta(userID: signedIn.user.id.rawValue, patch, at: env.clock()) {
            guard $0.utf8.count <= Self.maximumBytes else {
                throw AuthError.validation([
                    FieldError(field: "meta", message: "The meta may hold at most \(Self.maximumBytes / 1024) KiB of JSON.")
                ])
            }
        }
        await env.audit.recordOwnAct(
            .profileUpdated, of: signedIn, request: request,
            data: AuditTrail.data(["keys": .array(patch.keys.sorted().map(JSONValue.string)), "part": "meta"], via: via))
        return meta
    }
}
