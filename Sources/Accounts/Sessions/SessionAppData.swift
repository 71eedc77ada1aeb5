import AuthCore
import Store

/// The app's data on a handle-named session (`AppSessions.data`): what goes in its next access
/// token, and what stays on the server.
public struct SessionAppData: Sendable, Equatable {
    public var inJWT: [String: JSONValue]?
    public var inDatabase: [String: JSONValue]

    init(_ row: AppSessionData) { (inJWT, inDatabase) = (row.inJWT, row.inDatabase) }
}
