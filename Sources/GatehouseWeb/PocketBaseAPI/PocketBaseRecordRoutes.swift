import Accounts
import AuthCore
import Foundation
import HTTPServer

/// `users` records with PocketBase's default rules for that collection: anyone may create (sign-up),
/// a user lists, views, updates and deletes only their own record, superusers bypass every rule
/// (`PocketBaseCaller+Visibility`).
struct PocketBaseRecordRoutes: Sendable {
    /// The most records one page returns (PocketBase's own cap is 1,000).
    static let maximumPerPage = 500

    let api: PocketBaseAPI
    var env: PageEnvironment { api.env }

    func register(on router: inout Router) {
        let records = "/api/collections/:collection/records"
        api.on(&router, .get, records) { request, parameters in
            if try api.collection(parameters, allowed: [.users, .externalAuths]) == .externalAuths {
                return try await PocketBaseExternalAuths(api: api).list(request)
            }
            let (page, _) = try await list(request, caller: await api.tokens.caller(request))
            return try PocketBaseAPI.json(page.json)
        }
        api.on(&router, .get, records + "/count") { request, parameters in
            _ = try api.collection(parameters, allowed: [.users])
            let (page, _) = try await list(request, caller: await api.tokens.caller(request), countOnly: true)
            return try .json(["count": page.totalItems])
        }
        api.on(&router, .get, records + "/:id") { request, parameters in
            if try api.collection(parameters, allowed: [.users, .externalAuths]) == .externalAuths {
                return try await PocketBaseExternalAuths(api: api).view(request, id: try parameters.require("id"))
            }
            let caller = await api.tokens.caller(request)
            let user = try await visibleUser(UserID(try parameters.require("id")), caller: caller)
            return try PocketBaseAPI.json(
                PocketBaseRecord.picking(PocketBaseRecord.user(user, showEmail: true), fields: try fields(request)))
        }
        api.on(&router, .post, records, failure: "Failed to create record.", create)
        api.on(&router, .patch, records + "/:id", failure: "Failed to update record.", update)
        api.on(&router, .delete, records + "/:id") { request, parameters in
            if try api.collection(parameters, allowed: [.users, .externalAuths]) == .externalAuths {
                return try await PocketBaseExternalAuths(api: api).delete(request, id: try parameters.require("id"))
            }
            let caller = await api.tokens.caller(request)
            let user = try await visibleUser(UserID(try parameters.require("id")), caller: caller)
            switch caller {
            case .superuser(let staff):
                try await UserAdministration(env: env.accounts, staff: staff, request: request, via: "pocketbase-api").delete(
                    user)
            case .user(let signedIn, _):
                try await UserAdministration.deleteOwnAccount(
                    signedIn, env: env.accounts, request: request, via: "pocketbase-api")
            case .guest:
                throw PocketBaseAnswer(404, PocketBaseError.standardMessage(for: 404))
            }
            return Response(status: 204)
        }
    }

    /// One page of the records the caller may see (`PocketBaseCaller.scoped`).
    private func list(_ request: Request, caller: PocketBaseCaller, countOnly: Bool = false) async throws
        -> (ListBody, [User])
    {
        let query = request.query
        var userQuery = UserQuery(
            page: Int(try query.single("page") ?? "") ?? 1,
            perPage: min(Int(try query.single("perPage") ?? "") ?? 30, Self.maximumPerPage), sort: .oldest)
        userQuery.filter = try query.single("filter")
        userQuery.sortExpression = try query.single("sort")
        let skipTotal = try query.single("skipTotal") ?? ""
        userQuery.skipTotal = !countOnly && ["true", "1"].contains(skipTotal)
        if countOnly { userQuery.perPage = 1 }
        let page: UserPage
        do {
            page = try await UserDirectory(env: env.accounts).page(caller.scoped(userQuery))
        } catch AuthError.validation(let problems) {
            // PocketBase says only "Something went wrong"; Gatehouse names the part it cannot read.
            throw PocketBaseAnswer(400, problems.map(\.message).joined(separator: " "))
        }
        let wanted = try fields(request)
        let items = page.users.map {
            JSONValue.object(PocketBaseRecord.picking(PocketBaseRecord.user($0, showEmail: true), fields: wanted))
        }
        return (
            ListBody(
                items: countOnly ? [] : items, page: page.page, perPage: page.perPage, totalItems: page.totalItems,
                totalPages: page.totalPages), page.users
        )
    }

    /// Sign-up (anyone), or an account made by a superuser (who may set `verified`).
    private func create(_ request: Request, _ parameters: PathParameters) async throws -> Response {
        if try api.collection(parameters, allowed: [.users, .externalAuths]) == .externalAuths {
            return try await PocketBaseExternalAuths(api: api).create(request)
        }
        let caller = await api.tokens.caller(request)
        let body = try api.body(request)
        var problems = PocketBaseAPI.required(body, ["email", "password", "passwordConfirm"])
        let (email, password) = (PocketBaseAPI.text(body, "email") ?? "", PocketBaseAPI.text(body, "password") ?? "")
        if problems["passwordConfirm"] == nil, PocketBaseAPI.text(body, "passwordConfirm") != password {
            problems["passwordConfirm"] = .init(code: "validation_values_mismatch", message: "Values don't match.")
        }
        let patch = try RecordFields(body).profilePatch
        guard problems.isEmpty else { throw PocketBaseAnswer(400, "Failed to create record.", data: problems) }
        let extra = patch.filter { $0.key != "name" }
        if case .superuser(let staff) = caller {
            let created = try await TestUserOperations(env: env.accounts, staff: staff, request: request).createOne(
                email: email, password: password, name: PocketBaseAPI.text(body, "name"),
                verified: body["verified"] == .bool(true), profile: extra, via: "pocketbase-api")
            return try PocketBaseAPI.json(PocketBaseRecord.user(created, showEmail: true))
        }
        // Mails nothing, as PocketBase's create: the app asks with `request-verification`.
        let created = try await SignUp(env: env.accounts, via: "pocketbase-api", policy: .pocketBaseAPI).attemptWithoutSession(
            SignUpRequest(email: email, password: password, name: PocketBaseAPI.text(body, "name")), profile: extra,
            for: .app(userAgent: request.headers["User-Agent"], ip: request.remoteAddress), request: request)
        // A guest's new record leaves `email` out unless `emailVisibility` is on (PocketBase's rule).
        return try PocketBaseAPI.json(PocketBaseRecord.user(created, showEmail: false))
    }

    /// Profile fields for the owner (as the owner, through the seam), anything for a superuser.
    /// The owner changes the password with `oldPassword`, and the email only through the change flow.
    private func update(_ request: Request, _ parameters: PathParameters) async throws -> Response {
        _ = try api.collection(parameters, allowed: [.users])
        let caller = await api.tokens.caller(request)
        let user = try await visibleUser(UserID(try parameters.require("id")), caller: caller)
        let body = try api.body(request)
        let patch = try RecordFields(body).profilePatch
        let password = PocketBaseAPI.text(body, "password")
        if let password, PocketBaseAPI.text(body, "passwordConfirm") != password {
            throw PocketBaseAnswer(
                400, "Failed to update record.",
                data: ["passwordConfirm": .init(code: "validation_values_mismatch", message: "Values don't match.")])
        }
        switch caller {
        case .superuser(let staff):
            var update = UserUpdate(email: PocketBaseAPI.text(body, "email"), password: password)
            if case .bool(let verified) = body["verified"] { update.verified = verified }
            if !patch.isEmpty { update.profilePatch = patch }
            let updated = try await UserAdministration(env: env.accounts, staff: staff, request: request, via: "pocketbase-api")
                .update(user, update)
            return try PocketBaseAPI.json(PocketBaseRecord.user(updated, showEmail: true))
        case .user(let signedIn, _):
            if let email = PocketBaseAPI.text(body, "email"), email != user.email {
                throw PocketBaseAnswer(
                    400, "Failed to update record.",
                    data: [
                        "email": .init(code: "validation_values_mismatch", message: "Change the email with request-email-change.")
                    ])
            }
            if body["verified"] != nil {
                throw PocketBaseAnswer(
                    400, "Failed to update record.",
                    data: ["verified": .init(code: "validation_values_mismatch", message: "Only superusers can set this.")])
            }
            let profiles = ProfileUpdate(env: env.accounts, via: "pocketbase-api")
            var session = signedIn.backendSession
            if let password {
                guard let old = PocketBaseAPI.text(body, "oldPassword"), !old.isEmpty else {
                    throw PocketBaseAnswer(
                        400, "Failed to update record.",
                        data: ["oldPassword": .init(code: "validation_required", message: "Cannot be blank.")])
                }
                switch try await PasswordChange(env: env.accounts, via: "pocketbase-api").change(
                    current: old, new: password, of: signedIn, request: request)
                {
                case .changed(let renewed, _):
                    session = renewed
                case .secondStep:
                    // Every session of the account ended, this token's too, as PocketBase's password
                    // change ends every token; what remains of the update cannot be made as the owner.
                    return try PocketBaseAPI.json(PocketBaseRecord.user(signedIn.user, showEmail: true))
                case .refused:
                    // PocketBase's own answer to a wrong `oldPassword` (and to a try not checked).
                    throw PocketBaseAnswer(
                        400, "Failed to update record.",
                        data: [
                            "oldPassword": .init(
                                code: "validation_invalid_old_password", message: "Missing or invalid old password.")
                        ])
                }
            }
            var updated = signedIn.user
            if !patch.isEmpty {
                updated = try await profiles.apply(patch, of: signedIn, session: session, request: request)
            }
            return try PocketBaseAPI.json(PocketBaseRecord.user(updated, showEmail: true))
        case .guest:
            throw PocketBaseAnswer(404, PocketBaseError.standardMessage(for: 404))
        }
    }

    /// The record when the caller may see it; PocketBase answers 404 (not 403) for hidden ones.
    private func visibleUser(_ id: UserID, caller: PocketBaseCaller) async throws -> User {
        guard caller.mayView(id) else { throw PocketBaseAnswer(404, PocketBaseError.standardMessage(for: 404)) }
        if case .user(let signedIn, _) = caller { return signedIn.user }
        return try await UserDirectory(env: env.accounts).user(id)
    }

    private func fields(_ request: Request) throws -> Set<String>? {
        try request.query.single("fields").map(PocketBaseRecord.fieldNames)
    }
}

/// A list page as PocketBase writes it (`totalItems`/`totalPages` are -1 with `skipTotal`).
struct ListBody: Encodable {
    var items: [JSONValue]
    var page: Int
    var perPage: Int
    var totalItems: Int
    var totalPages: Int

    /// The same fields as a JSON object, for `JSONValue`'s direct writer.
    var json: [String: JSONValue] {
        [
            "items": .array(items), "page": .number(Double(page)), "perPage": .number(Double(perPage)),
            "totalItems": .number(Double(totalItems)), "totalPages": .number(Double(totalPages))
        ]
    }
}

/// The writable record fields of a body as a profile patch: `name`, `avatar` (→ `avatar_url`),
/// `emailVisibility` and any other key that is not one of Gatehouse's own fields.
struct RecordFields {
    let profilePatch: [String: JSONValue]

    init(_ body: [String: JSONValue]) throws {
        var patch: [String: JSONValue] = [:]
        for (key, value) in body where !PocketBaseRecord.reservedFields.contains(key) { patch[key] = value }
        if let name = body["name"] { patch["name"] = name }
        if let avatar = body["avatar"] { patch["avatar_url"] = avatar == .string("") ? .null : avatar }
        if let visibility = body["emailVisibility"] {
            guard case .bool = visibility else {
                throw PocketBaseAnswer(
                    400, "Failed to update record.",
                    data: ["emailVisibility": .init(code: "validation_invalid_value", message: "Must be true or false.")])
            }
            patch["emailVisibility"] = visibility
        }
        profilePatch = patch
    }
}
