import Accounts
import AuthCore
import Foundation
import HTTPServer

/// `/_/testing` (the console's Testing page; while `--no-test-controls` it only says they are
/// off): the test controls for staff — the faults in force (added and removed here), an account's
/// clock (`TestingPage+Clock`), one-call sign-in (`TestingPage+SignIn`), the latest codes and links
/// mailed to an address, the request ledger. Each section is one entry in `sections`; every act is
/// audited as the API's is (`TestControlCaller.staff`), and so is reading an address's codes.
/// Showing the page itself, with its ledger, is not an act and leaves the audit log alone.
struct TestingPage: Sendable {
    let env: PageEnvironment
    /// One-call sign-in's answers, the API's own.
    let signIns: TestSignInAnswers

    static let path = "/_/testing"
    /// How many ledger entries the page shows.
    static let ledgerRows = 50

    func register(on router: inout Router) {
        router.consolePage(.get, Self.path, env) { visit, staff in
            try await guarded(visit) { try await render(visit, staff) }
        }
        registerClock(on: &router)
        registerSignIn(on: &router)
        router.consolePage(.post, Self.path + "/faults", env) { visit, staff in
            try await guarded(visit) {
                let asked = try Self.fault(from: visit)
                do {
                    _ = try await TestFaults(env: env.accounts, caller: .staff(staff)).add(asked, request: visit.request)
                    return try await render(visit, staff, ["result": "Fault added."])
                } catch AuthError.validation(let fields) {
                    let errors = ["fault": Dictionary(fields.map { ($0.field, $0.message) }) { first, _ in first }]
                    return try await render(visit, staff, ["errors": errors, "form": Self.formValues(visit)], status: 422)
                }
            }
        }
        router.consolePage(.post, Self.path + "/faults/:id/remove", env) { visit, staff in
            try await guarded(visit) {
                let removed = try await TestFaults(env: env.accounts, caller: .staff(staff))
                    .remove(id: visit.parameters.require("id"), request: visit.request)
                return try await render(
                    visit, staff, ["result": removed ? "Fault removed." : "That fault was spent or removed already."],
                    status: removed ? 200 : 404)
            }
        }
    }

    /// Refuses a peer the test controls do not answer, and says so when they are left out.
    func guarded(_ visit: Visit, _ body: () async throws -> Response) async throws -> Response {
        guard env.configuration.testControls != .off else {
            return env.renderer.errorPage(
                status: 404, heading: "Test controls are off",
                message:
                    "Gatehouse was started with --no-test-controls: faults, codes, reset and the request ledger are left out.")
        }
        guard env.configuration.testControls.admits(visit.request) else {
            return env.renderer.errorPage(status: 403, heading: "Test controls are off here", message: TestControls.refusal)
        }
        return try await body()
    }

    /// The add form as `TestFaults` asks it; blank fields are left out.
    private static func fault(from visit: Visit) throws -> TestFaults.Spec {
        func number(_ name: String) throws -> Int? {
            let text = try visit.field(name).trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? nil : Int(text) ?? -1
        }
        return TestFaults.Spec(
            method: try visit.field("method"), path: try visit.field("path"), match: nil, status: try number("status"),
            body: nil, delayMs: try number("delayMs"), count: try number("count"))
    }

    /// A form's fields as typed, to show again beside its errors.
    static func formValues(_ visit: Visit) -> [String: String] {
        Dictionary(visit.form.map { ($0.name, $0.value) }) { first, _ in first }
    }

    /// The page with every section, `extra` (a result, a form's errors) over them.
    func render(_ visit: Visit, _ staff: Staff, _ extra: [String: Any] = [:], status: Int = 200) async throws
        -> Response
    {
        var page: [String: Any] = [
            "methods": ["*", "GET", "POST", "PUT", "PATCH", "DELETE"],
            "expireKinds": AccountClockControl.Kind.allCases.map(\.rawValue),
            "ways": TestSignIn.Way.allCases.map(\.rawValue)
        ]
        for section in sections {
            page.merge(try await section(visit, staff)) { $1 }
        }
        page.merge(extra) { $1 }
        return env.renderer.page(
            .consoleTesting,
            visit.consoleContext(
                title: "Testing", staff: staff, nav: .testing, backendName: env.configuration.backendDescription, page),
            status: status)
    }

    /// The page's sections, each giving its own keys.
    private var sections: [@Sendable (Visit, Staff) async throws -> [String: Any]] {
        [faultsSection, codesSection, ledgerSection]
    }

    private func faultsSection(_ visit: Visit, _ staff: Staff) async throws -> [String: Any] {
        let faults = TestFaults(env: env.accounts, caller: .staff(staff)).list()
        return [
            "faultsEmpty": faults.isEmpty,
            "faults": faults.map { fault -> [String: Any] in
                [
                    "id": fault.id, "method": fault.method?.rawValue ?? "any", "path": fault.path, "match": fault.match.rawValue,
                    "status": fault.status.map(String.init) ?? "passes", "delayMs": fault.delayMs, "remaining": fault.remaining,
                    "removeURL": "\(Self.path)/faults/\(fault.id)/remove"
                ]
            }
        ]
    }

    private func codesSection(_ visit: Visit, _ staff: Staff) async throws -> [String: Any] {
        guard let email = try visit.query("email"), !email.isEmpty else { return [:] }
        do {
            let latest = try await TestCodes(env: env.accounts, mailbox: env.mailbox, caller: .staff(staff))
                .latest(email: email, request: visit.request)
            return [
                "codesFor": email, "codesEmpty": latest.isEmpty, "codesShown": !latest.isEmpty,
                "codes": latest.map { item -> [String: Any] in
                    [
                        "kind": item.kind.rawValue, "code": item.code ?? "", "link": item.link ?? "",
                        "sentAt": DisplayDate.dateTime(item.sentAt)
                    ]
                }
            ]
        } catch AuthError.validation(let fields) {
            return ["codesFor": email, "errors": ["codes": ["email": fields.first?.message ?? ""]]]
        }
    }

    private func ledgerSection(_ visit: Visit, _ staff: Staff) async throws -> [String: Any] {
        let entries = TestRequests(env: env.accounts, caller: .staff(staff)).newest(Self.ledgerRows)
        return [
            "ledgerEmpty": entries.isEmpty,
            "ledger": entries.map { entry -> [String: Any] in
                [
                    "id": entry.id, "at": DisplayDate.dateTime(entry.at), "method": entry.method, "path": entry.path,
                    "wayIn": entry.wayIn, "status": entry.status, "failed": entry.status >= 400,
                    "milliseconds": String(format: "%.1f", entry.milliseconds), "faulted": entry.fault != nil,
                    "caused": entry.effects.map { "\($0.kind) \($0.detail)" }.joined(separator: ", ")
                ]
            }
        ]
    }
}
