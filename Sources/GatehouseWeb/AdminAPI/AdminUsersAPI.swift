import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets

/// The console's user operations as JSON under `/_/api/users`, for scripts and tests. Every call
/// needs a superuser bearer token (`POST /_/api/auth`); errors use Gatehouse's envelope.
struct AdminUsersAPI: Sendable {
    let env: PageEnvironment

    /// An account as the admin API returns it: the export file's row, field for field.
    typealias UserBody = UserExport.Row

    func register(on router: inout Router) {
        router.adminAPI(.get, "/_/api/users", env) { request, _, staff in
            let administration = try operations(staff, request)
            let filters = try UserListFilters(request.query)
            let limit = try request.query.single("limit").map { Int($0) ?? 0 } ?? 50
            guard (1...500).contains(limit) else { throw APIFailure.invalid("limit must be a whole number from 1 to 500.") }
            let query = filters.userQuery(perPage: limit, cursor: try request.query.single("after"))
            let page = try await administration.users(query, taggedWith: filters.tag)
            let tags = try await administration.tags(of: page.users.map(\.id))
            struct List: Encodable {
                var items: [UserBody]
                var totalItems: Int
                var nextCursor: String?
            }
            return try .json(
                List(
                    items: page.users.map { UserBody($0, tags: tags[$0.id] ?? []) },
                    totalItems: page.totalItems, nextCursor: page.nextCursor))
        }
        router.adminAPI(.post, "/_/api/users", env) { request, _, staff in
            struct Create: Decodable {
                var email: String
                var password: String?
                var name: String?
                var verified: Bool?
                var tag: String?
            }
            struct Created: Encodable {
                var user: UserBody
                var generatedPassword: String?
            }
            let body: Create = try request.decodeJSON()
            let tag = body.tag.flatMap { $0.isEmpty ? nil : $0 }
            try requireAdministration()
            let (user, generated) = try await TestUserOperations(env: env.accounts, staff: staff, request: request).createOne(
                email: body.email, password: body.password, name: body.name, verified: body.verified ?? false, tag: tag,
                via: "api")
            var response = try Response.json(
                Created(
                    user: UserBody(user, tags: tag.map { [$0] } ?? []),
                    generatedPassword: generated), status: 201)
            response.headers.replaceOrAdd("Location", "/_/api/users/\(user.id.rawValue)")
            return response
        }
        router.adminAPI(.get, "/_/api/users/:id", env) { request, parameters, staff in
            let administration = try operations(staff, request)
            let user = try await user(parameters, administration)
            return try .json(UserBody(user, tags: try await administration.tags(of: user)))
        }
        router.adminAPI(.patch, "/_/api/users/:id", env) { request, parameters, staff in
            let administration = try operations(staff, request)
            let target = try await user(parameters, administration)
            let body: UserPatchBody = try request.decodeJSON()
            let update = UserUpdate(
                email: body.email, password: body.password, verified: body.verified, disabled: body.disabled,
                profilePatch: body.profile)
            let updated = try await administration.update(target, update)
            return try .json(UserBody(updated, tags: try await administration.tags(of: updated)))
        }
        router.adminAPI(.delete, "/_/api/users/:id", env) { request, parameters, staff in
            let administration = try operations(staff, request)
            try await administration.delete(try await user(parameters, administration))
            return .empty(status: 204)
        }
        router.adminAPI(.post, "/_/api/users/:id/impersonate", env) { request, parameters, staff in
            struct Ask: Decodable {
                var duration: Double?
                var reason: String?
                var ticket: String?
            }
            struct Issued: Encodable {
                var token: String
                var url: String
                var expiresAt: String
            }
            let target = try await user(parameters, try operations(staff, request))
            let ask: Ask = request.body.isEmpty ? Ask() : try request.decodeJSON()
            let duration = ask.duration ?? TimeInterval(ImpersonationPages.defaultMinutes * 60)
            guard (1...Impersonation.maximumDuration).contains(duration) else {
                throw APIFailure.invalid("duration is in seconds, from 1 to 3600.")
            }
            switch try await ImpersonationStart(env: env.accounts, staff: staff, request: request, via: "api").start(
                target, delivery: .backendTokenAndLink, duration: duration, reason: ask.reason ?? "", ticket: ask.ticket ?? "")
            {
            case .refused(let refusal):
                throw APIFailure.forbidden(refusal.message)
            case .unexplained(let problem):
                throw APIFailure.invalid(problem.message)
            case .started(let started):
                return try .json(
                    Issued(
                        token: started.session.accessToken,
                        url: URLQuery.path("/_/impersonation/open", [("ticket", started.ticket ?? "")]),
                        expiresAt: Timestamp.iso8601(started.expiresAt)))
            }
        }
        router.adminAPI(.get, "/_/api/users/:id/sessions", env) { request, parameters, staff in
            let administration = try operations(staff, request)
            let target = try await user(parameters, administration)
            return try .json(try await administration.sessions(of: target).map(SessionBody.init))
        }
        router.adminAPI(.delete, "/_/api/users/:id/sessions", env) { request, parameters, staff in
            let administration = try operations(staff, request)
            try await administration.revokeSessions(of: try await user(parameters, administration))
            return .empty(status: 204)
        }
        router.adminAPI(.delete, "/_/api/users/:id/sessions/:sid", env) { request, parameters, staff in
            let administration = try operations(staff, request)
            let target = try await user(parameters, administration)
            let sessionID = try parameters.require("sid", as: Int64.self)
            guard try await administration.revokeSession(sessionID, of: target) else {
                throw APIFailure.notFound("That session does not belong to this user.")
            }
            return .empty(status: 204)
        }
    }

    private func operations(_ staff: Staff, _ request: Request) throws -> UserAdministration {
        try requireAdministration()
        return UserAdministration(env: env.accounts, staff: staff, request: request, via: "api")
    }

    private func requireAdministration() throws {
        guard env.capabilities.contains(.userAdministration) else {
            throw APIFailure.unsupported("User administration is not supported by this backend.")
        }
    }

    private func user(_ parameters: PathParameters, _ administration: UserAdministration) async throws -> User {
        let id = try parameters.require("id")
        do {
            return try await administration.user(UserID(id))
        } catch AuthError.userNotFound {
            throw APIFailure.notFound("There is no user with the id \(id).")
        }
    }
}

/// `PATCH /_/api/users/{id}`: every field optional.
struct UserPatchBody: Decodable {
    var email: String?
    var password: String?
    var verified: Bool?
    var disabled: Bool?
    var profile: [String: JSONValue]?
}

/// One session as the admin API lists it.
struct SessionBody: Encodable {
    var id: Int64
    var userAgent: String?
    var ip: String?
    var createdAt: String
    var lastUsedAt: String
    var expiresAt: String
    var revokedAt: String?
    var impersonator: String?

    init(_ record: SessionRow) {
        id = record.id
        userAgent = record.userAgent
        ip = record.ip
        createdAt = Timestamp.iso8601(record.createdAt)
        lastUsedAt = Timestamp.iso8601(record.lastUsedAt)
        expiresAt = Timestamp.iso8601(record.expiresAt)
        revokedAt = record.revokedAt.map(Timestamp.iso8601)
        impersonator = record.impersonator
    }
}
