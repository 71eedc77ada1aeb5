import AuthCore
import Store

/// The app's data on a handle-named session (SuperTokens' session data and the JWT payload its
/// next refresh uses), kept in the file beside the session's row and gone with it.
extension AppSessions {
    /// The app's data on the session `handle` names; nil for a forged handle or none set.
    public func data(handle: String) async throws -> SessionAppData? {
        guard let id = rowID(handle: handle) else { return nil }
        return try await env.database.appSessionData(sessionID: id).map(SessionAppData.init)
    }

    /// Sets the given parts of the app's data on the session `handle` names (the rest kept).
    public func setData(handle: String, inJWT: [String: JSONValue]? = nil, inDatabase: [String: JSONValue]? = nil) async throws {
        guard let id = rowID(handle: handle) else { return }
        try await env.database.setAppSessionData(sessionID: id, inJWT: inJWT, inDatabase: inDatabase)
    }
}
