import Foundation
import Logging

/// The superuser's token, fetched on first use and again shortly before it expires.
actor SuperuserLogin {
    private let http: PocketBaseHTTP
    private let email: String
    private let password: String
    private var token: String?
    private var expiresAt: Date?

    init(http: PocketBaseHTTP, email: String, password: String) {
        self.http = http
        self.email = email
        self.password = password
    }

    func currentToken() async throws -> String {
        if let token, let expiresAt, expiresAt.timeIntervalSinceNow > 60 { return token }
        let reply = try await http.json(
            PocketBaseAuthReply.self, "POST", "api/collections/_superusers/auth-with-password",
            body: ["identity": .string(email), "password": .string(password)], call: .signIn)
        token = reply.token
        expiresAt = PocketBaseToken.decode(reply.token)?.expiresAt ?? Date().addingTimeInterval(300)
        return reply.token
    }

    func forget() {
        token = nil
        expiresAt = nil
    }
}

/// Administration of a PocketBase collection as its superuser.
struct PocketBaseAdmin: AuthAdminAPI {
    let backend: PocketBaseBackend
    var http: PocketBaseHTTP { backend.http }
    var profileField: String? { backend.configuration.profileField }

    /// Runs `call` with the superuser token; a refused token is fetched again once.
    @discardableResult
    func asSuperuser<T: Sendable>(_ call: (String) async throws -> T) async throws -> T {
        guard let login = backend.superuser else { throw AuthError.notSupported(.userAdministration) }
        do {
            return try await call(try await login.currentToken())
        } catch AuthError.sessionExpired {
            await login.forget()
            return try await call(try await login.currentToken())
        }
    }

    /// PocketBase pages by number, so the cursor is the next page's number. Filters become its
    /// filter syntax; "has a linked account" is resolved through `_externalAuths` first.
    func listUsers(_ query: UserQuery) async throws -> UserPage {
        if query.disabled == true {
            // PocketBase has no disabled accounts: none match.
            return UserPage(users: [], page: 1, perPage: query.perPage, totalItems: 0)
        }
        let page = query.cursor.flatMap(Int.init) ?? query.page
        var clauses: [String] = []
        if let search = query.search?.trimmingCharacters(in: .whitespacesAndNewlines), !search.isEmpty {
            let literal = Self.literal(search)
            clauses.append("(email~'\(literal)' || name~'\(literal)' || id='\(literal)')")
        }
        if let verified = query.verified { clauses.append("verified=\(verified)") }
        if let ids = query.ids { clauses.append(try Self.idClause(ids, matching: true)) }
        if let linked = query.hasExternalAuth {
            clauses.append(try Self.idClause(try await linkedUserIDs(), matching: linked))
        }
        // A caller's own PocketBase filter and sort pass through as they are: PocketBase evaluates them.
        if let filter = query.filter, !filter.trimmingCharacters(in: .whitespaces).isEmpty {
            clauses.append("(\(filter))")
        }
        var sort: String
        switch query.sort {
        case .newest: sort = "-created,-id"
        case .oldest: sort = "created,id"
        case .emailAscending: sort = "email,id"
        case .emailDescending: sort = "-email,-id"
        case .nameAscending: sort = "name,id"
        case .nameDescending: sort = "-name,-id"
        // PocketBase has no disabled flag: its status is whether the address is verified.
        case .statusAscending: sort = "-verified,-created,-id"
        case .statusDescending: sort = "verified,created,id"
        case .lastSignInNewest, .lastSignInOldest:
            throw AuthError.validation([
                FieldError(field: "sort", message: "PocketBase does not record when a user last signed in.")
            ])
        }
        if let expression = query.sortExpression, !expression.isEmpty { sort = expression }
        var items = [
            URLQueryItem(name: "page", value: "\(page)"), URLQueryItem(name: "perPage", value: "\(query.perPage)"),
            URLQueryItem(name: "sort", value: sort), URLQueryItem(name: "skipTotal", value: "\(query.skipTotal)")
        ]
        if !clauses.isEmpty { items.append(URLQueryItem(name: "filter", value: clauses.joined(separator: " && "))) }
        let list = try await asSuperuser { token in
            try await http.json(PocketBaseList<PocketBaseRecord>.self, "GET", backend.records, query: items, token: token)
        }
        let hasNext = list.totalItems < 0 ? list.items.count == list.perPage : list.page * list.perPage < list.totalItems
        return UserPage(
            users: list.items.map { $0.user(profileField: profileField) }, page: list.page,
            perPage: list.perPage, totalItems: list.totalItems, nextCursor: hasNext ? String(list.page + 1) : nil)
    }

    /// Ids of the users with at least one `_externalAuths` record (at most 500 are considered).
    private func linkedUserIDs() async throws -> [UserID] {
        let list = try await asSuperuser { token in
            try await http.json(
                PocketBaseList<PocketBaseExternalAuth>.self, "GET", "api/collections/_externalAuths/records",
                query: [
                    URLQueryItem(name: "perPage", value: "500"),
                    URLQueryItem(name: "fields", value: "id,recordRef,provider,providerId,created")
                ],
                token: token)
        }
        return Array(Set(list.items.map { UserID($0.recordRef) }))
    }

    /// `(id='a' || id='b')`, or its negation; PocketBase filters travel in the URL, so the list is capped.
    private static func idClause(_ ids: [UserID], matching: Bool) throws -> String {
        guard ids.count <= 200 else {
            throw AuthError.validation([
                FieldError(field: "ids", message: "PocketBase filters can name at most 200 users at once.")
            ])
        }
        guard !ids.isEmpty else { return matching ? "id=''" : "id!=''" }
        let parts = try ids.map { "id\(matching ? "=" : "!=")'\(try PocketBaseBackend.safeID($0))'" }
        return "(" + parts.joined(separator: matching ? " || " : " && ") + ")"
    }

    private static func literal(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }

    func user(_ id: UserID) async throws -> User {
        try await record(id).user(profileField: profileField)
    }

    func record(_ id: UserID) async throws -> PocketBaseRecord {
        let safe = try PocketBaseBackend.safeID(id)
        return try await asSuperuser { token in
            try await http.json(PocketBaseRecord.self, "GET", "\(backend.records)/\(safe)", token: token, call: .adminRecord)
        }
    }

    func createUser(_ new: NewUser) async throws -> User {
        var body = try backend.profileBody(current: Profile(), patch: new.profile.fields)
        body["email"] = .string(new.email.trimmingCharacters(in: .whitespacesAndNewlines))
        body["password"] = .string(new.password)
        body["passwordConfirm"] = .string(new.password)
        body["verified"] = .bool(new.verified)
        let record = try await asSuperuser { token in
            try await http.json(PocketBaseRecord.self, "POST", backend.records, token: token, body: body, call: .signUp)
        }
        backend.logger.info("account created on PocketBase by admin", metadata: ["user": "\(record.id)"])
        return record.user(profileField: profileField)
    }

    func updateUser(_ id: UserID, _ update: UserUpdate) async throws -> User {
        // PocketBase has no disabled accounts; refusing beats silently ignoring the request.
        if update.disabled != nil { throw AuthError.notSupported(.disableUsers) }
        let safe = try PocketBaseBackend.safeID(id)
        var body: [String: JSONValue] = [:]
        if let patch = update.profilePatch, !patch.isEmpty {
            body = try backend.profileBody(current: try await user(id).profile, patch: patch)
        }
        if let email = update.email { body["email"] = .string(email.trimmingCharacters(in: .whitespacesAndNewlines)) }
        if let password = update.password {
            body["password"] = .string(password)
            body["passwordConfirm"] = .string(password)
        }
        if let verified = update.verified { body["verified"] = .bool(verified) }
        let record = try await asSuperuser { token in
            try await http.json(
                PocketBaseRecord.self, "PATCH", "\(backend.records)/\(safe)", token: token, body: body,
                call: .adminRecord)
        }
        backend.logger.info("account updated on PocketBase by admin", metadata: ["user": "\(safe)"])
        return record.user(profileField: profileField)
    }

    func deleteUser(_ id: UserID) async throws {
        let safe = try PocketBaseBackend.safeID(id)
        try await asSuperuser { token in
            try await http.send("DELETE", "\(backend.records)/\(safe)", token: token, call: .adminRecord)
        }
        backend.logger.notice("account deleted on PocketBase by admin", metadata: ["user": "\(safe)"])
    }

    /// One record request per account (PocketBase's batch API is off by default); accounts already
    /// gone are not counted.
    func deleteUsers(_ ids: [UserID]) async throws -> Int {
        var deleted = 0
        for id in ids {
            do {
                try await deleteUser(id)
                deleted += 1
            } catch AuthError.userNotFound {
                continue
            }
        }
        return deleted
    }

    /// PocketBase issues a non-refreshable token for the user; the duration is capped at one hour.
    /// PocketBase keeps no note of who impersonates; Gatehouse's audit log does.
    func impersonate(_ id: UserID, duration: TimeInterval, actor: String) async throws -> AuthSession {
        let safe = try PocketBaseBackend.safeID(id)
        let seconds = Int(Impersonation.clamp(duration))
        let reply = try await asSuperuser { token in
            try await http.json(
                PocketBaseAuthReply.self, "POST", "api/collections/\(backend.configuration.collection)/impersonate/\(safe)",
                token: token, body: ["duration": .number(Double(seconds))], call: .adminRecord)
        }
        backend.logger.notice("impersonation token issued by PocketBase", metadata: ["subject": "\(safe)", "actor": "\(actor)"])
        var session = backend.session(from: reply)
        session.refreshable = false
        return session
    }

    func linkExternalAuth(userID: UserID, provider: String, providerID: String) async throws -> ExternalAuth {
        let target = try await record(userID)
        let body: [String: JSONValue] = [
            "collectionRef": .string(target.collectionId ?? ""), "recordRef": .string(target.id),
            "provider": .string(provider), "providerId": .string(providerID)
        ]
        let created = try await asSuperuser { token in
            try await http.json(
                PocketBaseExternalAuth.self, "POST", "api/collections/_externalAuths/records",
                token: token, body: body)
        }
        return created.externalAuth
    }

    func externalAuth(id: String) async throws -> ExternalAuth? {
        do {
            return try await asSuperuser { token in
                try await http.json(
                    PocketBaseExternalAuth.self, "GET",
                    "api/collections/_externalAuths/records/\(try PocketBaseBackend.safeID(UserID(id)))", token: token,
                    call: .adminRecord)
            }.externalAuth
        } catch AuthError.userNotFound {
            return nil
        }
    }

    func externalAuths(of userID: UserID) async throws -> [ExternalAuth] {
        try await asSuperuser { token in
            try await backend.externalAuthRecords(userID: userID, token: token).map(\.externalAuth)
        }
    }

    func unlinkExternalAuth(of userID: UserID, provider: String) async throws {
        try await asSuperuser { token in
            let linked = try await backend.externalAuthRecords(userID: userID, token: token)
            guard let record = linked.first(where: { $0.provider == provider }) else { throw AuthError.userNotFound }
            try await http.send(
                "DELETE", "api/collections/_externalAuths/records/\(try PocketBaseBackend.safeID(UserID(record.id)))",
                token: token)
        }
    }
}
