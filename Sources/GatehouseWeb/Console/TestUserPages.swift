import Accounts
import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// `/_/test-users`: create one account, seed many, import, export and delete by tag. Each form
/// posts here and the page comes back with the outcome, or with the form as typed and its problems.
struct TestUserPages: Sendable {
    let env: PageEnvironment

    static let path = "/_/test-users"

    /// What one rendering of the page shows besides the forms' defaults.
    struct State {
        /// Values typed, by form (`create`, `seed`, `bulkDelete`) and field.
        var form: [String: [String: Any]] = [:]
        var errors = TestUserErrors()
        var importErrors: [ImportProblem] = []
        var result: String?
        var createdUser: [String: String]?
    }

    func register(on router: inout Router) {
        router.consolePage(.get, Self.path, env) { visit, staff in
            render(visit, staff, State())
        }
        router.consolePage(.post, Self.path + "/create", env, create)
        router.consolePage(.post, Self.path + "/seed", env, seed)
        router.consolePage(.post, Self.path + "/import", env, importFile)
        router.consolePage(.post, Self.path + "/bulk-delete", env, bulkDelete)
    }

    private func create(_ visit: Visit, _ staff: Staff) async throws -> Response {
        let email = try visit.field("email").trimmingCharacters(in: .whitespacesAndNewlines)
        let password = try visit.field("password")
        let name = try visit.field("name").trimmingCharacters(in: .whitespacesAndNewlines)
        let tag = try visit.field("tag").trimmingCharacters(in: .whitespaces)
        let verified = try visit.field("verified") == "true"
        var state = State()
        state.form["create"] = ["email": email, "name": name, "tag": tag, "verified": verified]
        do {
            let (user, generated) = try await operations(visit, staff).createOne(
                email: email, password: password.isEmpty ? nil : password, name: name.isEmpty ? nil : name,
                verified: verified, tag: tag.isEmpty ? nil : tag, via: "console")
            var created = State()
            if let generated {
                created.createdUser = ["email": user.email, "password": generated, "url": ConsoleURL.user(user.id)]
            } else {
                created.result = "Created \(user.email)\(verified ? ", verified" : "")\(tag.isEmpty ? "" : ", tagged \(tag)")."
            }
            return render(visit, staff, created)
        } catch let error as AuthError {
            state.errors.add(error, form: "create", fields: ["email": "create-email", "password": "create-password"])
            return render(visit, staff, state, status: 422)
        }
    }

    private func seed(_ visit: Visit, _ staff: Staff) async throws -> Response {
        let countText = try visit.field("count").trimmingCharacters(in: .whitespaces)
        let pattern = try visit.field("pattern").trimmingCharacters(in: .whitespacesAndNewlines)
        let tag = try visit.field("tag").trimmingCharacters(in: .whitespaces)
        let verified = try visit.field("verified") == "true"
        var state = State()
        state.form["seed"] = ["count": countText, "pattern": pattern, "tag": tag, "verified": verified]
        let fields = ["count": "seed-count", "pattern": "seed-pattern", "password": "seed-password"]
        // A count that is not a number is checked like 0, so every other field is checked too.
        let seed = UserSeed(
            count: Int(countText) ?? 0, pattern: pattern, password: try visit.field("password"), verified: verified)
        do {
            let outcome = try await operations(visit, staff).seed(seed, tag: tag.isEmpty ? nil : tag, via: "console")
            var done = State()
            done.result =
                "Created \(CountText.grouped(outcome.ids.count)) \(outcome.ids.count == 1 ? "user" : "users")"
                + (tag.isEmpty ? "" : " tagged \(tag)") + " in \(outcome.duration)."
            done.form["seed"] = ["tag": tag]
            return render(visit, staff, done)
        } catch let error as AuthError {
            state.errors.add(error, form: "seed", fields: fields)
            return render(visit, staff, state, status: 422)
        }
    }

    private func importFile(_ visit: Visit, _ staff: Staff) async throws -> Response {
        var state = State()
        let upload = try visit.request.multipartForm().files.first { $0.fieldName == "file" }
        guard let upload, !upload.bytes.isEmpty else {
            state.errors.add(form: "import", field: "file", id: "import-file", "Choose a JSON or CSV file to import.")
            return render(visit, staff, state, status: 422)
        }
        do {
            let format = UserImportFile.Format(rawValue: try visit.field("format"))
            let file = try UserImportFile(bytes: upload.bytes, filename: upload.filename, format: format)
            let outcome = try await operations(visit, staff).importFile(file, via: "console")
            state.result =
                "Imported \(CountText.grouped(outcome.ids.count)) \(outcome.ids.count == 1 ? "user" : "users") from "
                + "\(upload.filename.isEmpty ? "the file" : upload.filename) in \(outcome.duration)."
            return render(visit, staff, state)
        } catch let unreadable as UserImportFile.Unreadable {
            state.errors.add(form: "import", field: "file", id: "import-file", unreadable.message)
        } catch let rejected as ImportRejected {
            state.importErrors = rejected.problems
        } catch let error as AuthError {
            state.errors.add(error, form: "import", fields: [:])
        }
        return render(visit, staff, state, status: 422)
    }

    private func bulkDelete(_ visit: Visit, _ staff: Staff) async throws -> Response {
        let tag = try visit.field("tag").trimmingCharacters(in: .whitespaces)
        let confirm = try visit.field("confirm").trimmingCharacters(in: .whitespaces)
        var state = State()
        state.form["bulkDelete"] = ["tag": tag]
        if let problem = TestUserOperations.tagProblem(tag) {
            state.errors.add(form: "bulkDelete", field: "tag", id: "bulk-tag", problem)
        } else if confirm != tag {
            state.errors.add(
                form: "bulkDelete", field: "confirm", id: "bulk-confirm", "Type the tag exactly as above to confirm.")
        } else if try await !TestUserOperations(env: env.accounts, staff: staff, request: visit.request).isInUse(tag) {
            state.errors.add(form: "bulkDelete", field: "tag", id: "bulk-tag", "No users have the tag \(tag).")
        }
        guard state.errors.isEmpty else { return render(visit, staff, state, status: 422) }
        do {
            let outcome = try await operations(visit, staff).deleteTagged(tag)
            var done = State()
            done.result =
                "Deleted \(CountText.grouped(outcome.ids.count)) \(outcome.ids.count == 1 ? "user" : "users") tagged \(tag) "
                + "and signed them out, in \(outcome.duration)."
            return render(visit, staff, done)
        } catch let error as AuthError {
            state.errors.add(error, form: "bulkDelete", fields: [:])
            return render(visit, staff, state, status: 422)
        }
    }

    private func operations(_ visit: Visit, _ staff: Staff) throws -> TestUserOperations {
        guard env.capabilities.contains(.userAdministration) else {
            throw ConsoleError.unsupported(.userAdministration)
        }
        return TestUserOperations(env: env.accounts, staff: staff, request: visit.request)
    }

    private func render(_ visit: Visit, _ staff: Staff, _ state: State, status: Int = 200) -> Response {
        var page: [String: Any] = [
            "actions": [
                "create": Self.path + "/create", "seed": Self.path + "/seed", "import": Self.path + "/import",
                "bulkDelete": Self.path + "/bulk-delete"
            ],
            "form": state.form,
            "passwordRules": env.accounts.passwordRules.summary,
            "exportJSONURL": "/_/api/users/export?format=json",
            "exportCSVURL": "/_/api/users/export?format=csv"
        ]
        page.merge(state.errors.context) { $1 }
        if !state.importErrors.isEmpty {
            page["importErrors"] = state.importErrors.map { ["row": $0.row, "message": $0.message] as [String: Any] }
        }
        page["result"] = state.result
        page["createdUser"] = state.createdUser
        return env.renderer.page(
            .consoleTestUsers,
            visit.consoleContext(
                title: "Test users", staff: staff, nav: .testUsers, backendName: env.configuration.backendDescription, page),
            status: status)
    }
}

/// The test-users page's problems: `errors.FORM.FIELD` beside each field, and `errorList` (linking
/// to field ids such as `seed-count`) for the summary at the top. A form-wide message is `FORM.form`.
struct TestUserErrors {
    private var byForm: [String: [String: String]] = [:]
    private var list: [[String: String]] = []

    var isEmpty: Bool { byForm.isEmpty }

    mutating func add(form: String, field: String, id: String?, _ message: String) {
        guard byForm[form]?[field] == nil else { return }
        byForm[form, default: [:]][field] = message
        if let id { list.append(["field": id, "message": message]) }
    }

    /// A backend's refusal: validation errors by field where the form has that field (`ids`
    /// maps field → element id), everything else as the form's own message.
    mutating func add(_ error: AuthError, form: String, fields ids: [String: String]) {
        guard case .validation(let problems) = error else {
            if error == .emailExists, let id = ids["email"] {
                add(form: form, field: "email", id: id, error.pageMessage)
                return
            }
            add(form: form, field: "form", id: nil, error.pageMessage)
            return
        }
        for problem in problems {
            if let id = ids[problem.field] {
                add(form: form, field: problem.field, id: id, problem.message)
            } else {
                add(form: form, field: "form", id: nil, problem.message)
            }
        }
    }

    var context: [String: Any] { ["errors": byForm, "errorList": list] }
}
