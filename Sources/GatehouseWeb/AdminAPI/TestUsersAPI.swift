import Accounts
import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// Bulk test-user work as JSON, next to `AdminUsersAPI`: seed, import, delete by tag, export.
/// Refused input answers 422 with every problem (`fields` or `rows`), and nothing is written.
struct TestUsersAPI: Sendable {
    let env: PageEnvironment

    /// `POST /_/api/users/seed`.
    struct SeedBody: Decodable {
        var count: Int
        var pattern: String
        var password: String
        var verified: Bool?
        var tag: String?
    }

    /// `ids` only up to this many accounts, so a 1,000,000-user seed answers in a few kilobytes.
    static let maximumListedIDs = 1000

    struct Created: Encodable {
        var created: Int
        var tag: String?
        var ids: [String]?
        var seconds: Double

        init(_ outcome: TestUserOperations.Outcome, tag: String?) {
            created = outcome.ids.count
            self.tag = tag
            ids = outcome.ids.count <= TestUsersAPI.maximumListedIDs ? outcome.ids.map(\.rawValue) : nil
            seconds = (outcome.seconds * 1000).rounded() / 1000
        }
    }

    struct Refused: Encodable {
        var error = "VALIDATION"
        var message: String
        var status = 422
        var fields: [FieldError]?
        var rows: [ImportProblem]?
    }

    func register(on router: inout Router) {
        router.adminAPI(.post, "/_/api/users/seed", env) { request, _, staff in
            let body: SeedBody = try request.decodeJSON()
            let tag = body.tag.flatMap { $0.isEmpty ? nil : $0 }
            let operations = try operations(staff, request)
            do {
                let outcome = try await operations.seed(
                    UserSeed(
                        count: body.count, pattern: body.pattern, password: body.password,
                        verified: body.verified ?? false), tag: tag, via: "api")
                return try .json(Created(outcome, tag: tag), status: 201)
            } catch AuthError.validation(let fields) {
                return try .json(Refused(message: "Nothing was created: fix the fields named.", fields: fields), status: 422)
            }
        }
        router.adminAPI(.post, "/_/api/users/import", env) { request, _, staff in
            let format: UserImportFile.Format = request.mediaType == "text/csv" ? .csv : .json
            guard format == .csv || request.mediaType == "application/json" else { throw RequestError.unsupportedMediaType }
            let file: UserImportFile
            do {
                file = try UserImportFile(bytes: request.body, format: format)
            } catch let unreadable as UserImportFile.Unreadable {
                throw APIFailure.invalid(unreadable.message)
            }
            do {
                let outcome = try await operations(staff, request).importFile(file, via: "api")
                return try .json(Created(outcome, tag: nil), status: 201)
            } catch let rejected as ImportRejected {
                let rows = Set(rejected.problems.map(\.row)).count
                return try .json(
                    Refused(
                        message: "Nothing was imported: \(rows) \(rows == 1 ? "row has" : "rows have") problems.",
                        rows: rejected.problems), status: 422)
            }
        }
        router.adminAPI(.delete, "/_/api/users", env) { request, _, staff in
            guard let tag = try request.query.single("tag"), !tag.isEmpty else {
                throw APIFailure.invalid("Name the tag to delete: DELETE /_/api/users?tag=TAG.")
            }
            struct Deleted: Encodable {
                var deleted: Int
                var tag: String
            }
            let outcome = try await operations(staff, request).deleteTagged(tag)
            return try .json(Deleted(deleted: outcome.ids.count, tag: tag))
        }
        // A download link on the console page as well as an API call: a console cookie or a bearer token.
        router.on(.get, "/_/api/users/export") { request, _ in
            let staff = await env.console.fromBearer(request)
            let cookieStaff = staff == nil ? await env.console.fromCookie(request) : nil
            guard staff != nil || cookieStaff != nil else {
                return APIError.response(
                    status: 401, code: "UNAUTHORIZED",
                    message: "Send a superuser token as Authorization: Bearer TOKEN, or sign in to the console.")
            }
            let formatName = try request.query.single("format") ?? "json"
            guard let format = UserImportFile.Format(rawValue: formatName) else {
                throw APIFailure.invalid("format is json or csv.")
            }
            let tag = try request.query.single("tag").flatMap { $0.isEmpty ? nil : $0 }
            try requireAdministration()
            return try await UserExport(env: env.accounts).response(format: format, tag: tag)
        }
    }

    private func operations(_ staff: Staff, _ request: Request) throws -> TestUserOperations {
        try requireAdministration()
        return TestUserOperations(env: env.accounts, staff: staff, request: request)
    }

    private func requireAdministration() throws {
        guard env.capabilities.contains(.userAdministration) else {
            throw APIFailure.unsupported("User administration is not supported by this backend.")
        }
    }
}
