import AuthCore
import Foundation
import HTTPServer
import Secrets
import Store

/// The console's user operations as JSON under `/_/api/users`, for scripts and tests. Every call
/// needs a superuser bearer token (`POST /_/api/auth`); errors use Gatehouse's envelope.
struct AdminUsersAPI: Sendable {
    let env: PageEnvironment

    /// An account as the admin API returns it.
    struct UserBody: Encodable {
        var id: String
        var email: String
        var emailVerified: Bool
        var disabled: Bool
        var profile: [String: JSONValue]
        var tags: [String]
        var createdAt: String
        var updatedAt: String

        init(_ user: User, tags: [String]) {
            id = user.id.rawValue
            email = user.email
            emailVerified = user.emailVerified
            disabled = user.disabled
            profile = user.profile.fields
            self.tags = tags
            createdAt = Timestamp.iso8601(user.createdAt)
            updatedAt = Timestamp.iso8601(user.updatedAt)
        }
    }

    func register(on router: inout Router) {
        router.adminAPI(.get, "/_/api/users", env) { request, _, _ in
            let api = try administration()
            let filters = try UserListFilters(request.query)
            let limit = try request.query.single("limit").map { Int($0) ?? 0 } ?? 50
            guard (1...500).contains(limit) else { throw APIFailure.invalid("limit must be a whole number from 1 to 500.") }
            var query = filters.userQuery(perPage: limit, cursor: try request.query.single("after"))
            if let tag = filters.tag { query.ids = try await env.database.userIDs(taggedWith: tag) }
            let page = try await api.admin.listUsers(query)
            let tags = try await env.database.tags(of: page.users.map(\.id))
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
            let (user, generated) = try await TestUserOperations(
                env: env, api: try administration(), staff: staff, request: request
            )
            .createOne(
                email: body.email, password: body.password, name: body.name, verified: body.verified ?? false, tag: tag,
                via: "api")
            var response = try Response.json(
                Created(
                    user: UserBody(user, tags: tag.map { [$0] } ?? []),
                    generatedPassword: generated), status: 201)
            response.headers.replaceOrAdd("Location", "/_/api/users/\(user.id.rawValue)")
            return response
        }
        router.adminAPI(.get, "/_/api/users/:id", env) { _, parameters, _ in
            let user = try await user(parameters)
            return try .json(UserBody(user, tags: try await env.database.tags(of: [user.id])[user.id] ?? []))
        }
        router.adminAPI(.patch, "/_/api/users/:id", env) { request, parameters, staff in
            let target = try await user(parameters)
            let body: UserPatchBody = try request.decodeJSON()
            let update = UserUpdate(
                email: body.email, password: body.password, verified: body.verified, disabled: body.disabled,
                profilePatch: body.profile)
            let updated = try await operations(staff, request).update(target, update)
            return try .json(UserBody(updated, tags: try await env.database.tags(of: [updated.id])[updated.id] ?? []))
        }
        router.adminAPI(.delete, "/_/api/users/:id", env) { request, parameters, staff in
            try await operations(staff, request).delete(try await user(parameters))
            return .empty(status: 204)
        }
        router.adminAPI(.post, "/_/api/users/:id/impersonate", env) { request, parameters, staff in
            struct Ask: Decodable { var duration: Double? }
            struct Issued: Encodable {
                var token: String
                var url: String
                var expiresAt: String
            }
            let target = try await user(parameters)
            if let reason = try await ImpersonationPolicy(env: env).refusal(of: target, by: staff, visit: nil) {
                throw APIFailure.forbidden(reason)
            }
            let ask: Ask = request.body.isEmpty ? Ask(duration: nil) : try request.decodeJSON()
            let duration = ask.duration ?? TimeInterval(ImpersonationPages.defaultMinutes * 60)
            guard (1...Impersonation.maximumDuration).contains(duration) else {
                throw APIFailure.invalid("duration is in seconds, from 1 to 3600.")
            }
            let session = try await administration().admin.impersonate(
                target.id, duration: duration, actor: staff.superuser.email)
            let expiresAt = session.expiresAt ?? env.clock().addingTimeInterval(duration)
            let ticket = await env.impersonationTickets.issue(
                ImpersonationTicket(
                    userID: target.id, actor: staff.superuser.email, duration: duration, session: session))
            await env.audit.record(
                .impersonationStarted, actor: staff.superuser.id, subject: target.id.rawValue,
                request: request, data: ["mode": "api", "seconds": .number(duration)])
            return try .json(
                Issued(
                    token: session.accessToken, url: URLQuery.path("/_/impersonation/open", [("ticket", ticket)]),
                    expiresAt: Timestamp.iso8601(expiresAt)))
        }
        router.adminAPI(.get, "/_/api/users/:id/sessions", env) { _, parameters, _ in
            let target = try await user(parameters)
            return try .json(try await env.database.sessions(userID: target.id).map(SessionBody.init))
        }
        router.adminAPI(.delete, "/_/api/users/:id/sessions", env) { request, parameters, staff in
            try await operations(staff, request).revokeSessions(of: try await user(parameters))
            return .empty(status: 204)
        }
        router.adminAPI(.delete, "/_/api/users/:id/sessions/:sid", env) { request, parameters, staff in
            let target = try await user(parameters)
            let sessionID = try parameters.require("sid", as: Int64.self)
            guard try await operations(staff, request).revokeSession(sessionID, of: target) else {
                throw APIFailure.notFound("That session does not belong to this user.")
            }
            return .empty(status: 204)
        }
    }

    private func operations(_ staff: Staff, _ request: Request) throws -> UserAdministration {
        UserAdministration(env: env, api: try administration(), staff: staff, request: request, via: "api")
    }

    private func administration() throws -> any AuthAPI {
        let api = env.backend
        guard api.capabilities.contains(.userAdministration) else {
            throw APIFailure.unsupported("User administration is not supported by this backend.")
        }
        return api
    }

    private func user(_ parameters: PathParameters) async throws -> User {
        let id = try parameters.require("id")
        do {
            return try await administration().admin.user(UserID(id))
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

    init(_ record: SessionRecord) {
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
