import AuthCore

/// Who uses one of Gatehouse's test controls (`/_/api/test/…`): a superuser with an admin-API
/// token, or a test suite with a Descope management key. Named in every audit row the control writes.
public enum TestControlCaller: Sendable {
    case superuser(Staff)
    case managementKey(ManagementKey)

    /// Names Gatehouse's own test controls (`/_/api/test/…`) as the way in in the audit data.
    public static let via = "test-controls"

    /// The audit row's actor: the superuser's id; none for a key (the key is named in the data).
    var actor: String? {
        switch self {
        case .superuser(let staff): staff.superuser.id
        case .managementKey: nil
        }
    }

    /// The audit data naming the caller and the way in (`via`).
    func auditData(via: String) -> [String: JSONValue] {
        switch self {
        case .superuser: ["via": .string(via)]
        case .managementKey(let key): ["via": .string(via), "managementKey": .string(key.id)]
        }
    }
}
