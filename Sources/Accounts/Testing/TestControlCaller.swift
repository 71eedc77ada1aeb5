import AuthCore
import HTTPServer

/// Who uses Gatehouse's own test controls (`/_/api/test/…`, the console's Testing page): a
/// superuser (console cookie or admin-API token) or a test suite holding a management key. Every
/// use is audited with it.
public enum TestControlCaller: Sendable {
    case staff(Staff)
    case key(ManagementKey)

    /// The audit row's actor: the superuser; none for a key, which the data names.
    var actor: String? {
        if case .staff(let staff) = self { return staff.superuser.id }
        return nil
    }

    /// The audit data naming the way in (and the key, for a key).
    func auditData(_ data: [String: JSONValue] = [:]) -> [String: JSONValue] {
        var data = data
        data["via"] = .string("test-controls")
        if case .key(let key) = self { data["managementKey"] = .string(key.id) }
        return data
    }

    /// Records a use of the test controls.
    func record(_ event: AuditEvent, in env: Accounts, request: Request, data: [String: JSONValue] = [:]) async {
        await env.audit.record(event, actor: actor, request: request, data: auditData(data))
    }
}
