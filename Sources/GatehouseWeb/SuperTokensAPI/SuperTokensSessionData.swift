import AuthCore

/// The app's data on its sessions, by handle, in memory: `userDataInDatabase` (the core's
/// "session data", read back by `GET /recipe/session`) and the `userDataInJWT` that the next
/// refresh puts in the access token (`PUT /recipe/jwt/data`). The sealed refresh token carries the
/// JWT data too, so a restart loses only the database data.
actor SuperTokensSessionData {
    /// How many sessions are remembered at most; the oldest go first.
    static let capacity = 10_000

    struct Data: Sendable {
        var inJWT: [String: JSONValue]
        var inDatabase: [String: JSONValue]
    }

    private var sessions: [String: Data] = [:]
    private var order: [String] = []

    func data(_ handle: String) -> Data? { sessions[handle] }

    func set(_ handle: String, inJWT: [String: JSONValue]? = nil, inDatabase: [String: JSONValue]? = nil) {
        if sessions[handle] == nil {
            order.append(handle)
            while order.count > Self.capacity { sessions[order.removeFirst()] = nil }
        }
        var data = sessions[handle] ?? Data(inJWT: [:], inDatabase: [:])
        if let inJWT { data.inJWT = inJWT }
        if let inDatabase { data.inDatabase = inDatabase }
        sessions[handle] = data
    }
}
