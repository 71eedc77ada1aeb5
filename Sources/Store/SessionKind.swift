import Secrets

/// Who holds a session's token. The `sessions` table keeps every kind, each found by the keyed
/// hash of its token under the kind's own prefix; no prefix is empty or starts another, so a token
/// handed out as one kind can never be looked up as another — an app's API token (whose `sid` any
/// app holding it can read) is never a browser cookie, nor the reverse.
public enum SessionKind: String, Sendable, CaseIterable {
    /// A browser's `gh_session` cookie on the account pages.
    case browser = "browser:"
    /// The session row behind a PocketBase-API token's `sid`.
    case pocketBaseAPI = "pocketbase-api:"
    /// The session row behind an InsForge-API token's `sid`, with its rotating refresh token.
    case insForgeAPI = "insforge-api:"
    /// The session row behind a Descope-API refresh JWT's `sid`.
    case descopeAPI = "descope-api:"
    /// The session row behind a SuperTokens-core session handle, with its rotating refresh token.
    case superTokensCore = "supertokens-core:"
    /// A superuser's console cookie (`gh_console`): a row held by `superuser_id`, never by a person.
    case console = "console:"
    /// A superuser's admin-API bearer token (`POST /_/api/auth`): a row held by `superuser_id`,
    /// never a console cookie nor the reverse.
    case adminAPI = "admin-api:"
    /// The row behind a PocketBase-API `_superusers` token's `sid` (which any app holding the token
    /// reads): held by `superuser_id`, it opens neither the console nor the admin API.
    case pocketBaseSuperuser = "pocketbase-superuser:"
    /// The embedded backend's own access tokens (kept sealed behind the rows above, or held by an
    /// `AuthClient` app), with their rotating refresh tokens.
    case backend = "api-access:"

    /// The stored `token_hash` of `token`.
    public func tokenHash(_ token: String, with hasher: KeyedHash) -> String {
        hasher.hex(rawValue + token)
    }

    /// The stored `refresh_token_hash` of a refresh token of this kind.
    public func refreshTokenHash(_ token: String, with hasher: KeyedHash) -> String {
        hasher.hex(refreshPrefix + token)
    }

    /// Every prefix in use, access and refresh alike.
    public static var prefixes: [String] { allCases.flatMap { [$0.rawValue, $0.refreshPrefix] } }

    /// The embedded backend's refresh tokens kept the prefix they were first stored under.
    private var refreshPrefix: String { self == .backend ? "api-refresh:" : "refresh:" + rawValue }
}
