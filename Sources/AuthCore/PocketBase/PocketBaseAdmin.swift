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
        let reply = try await http.json(PocketBaseAuthReply.self, "POST", "api/collections/_superusers/auth-with-password",
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

    func listUsers(_ query: UserQuery) async throws -> UserPage {
        var items = [URLQueryItem(name: "page", value: "\(query.page)"), URLQueryItem(name: "perPage", value: "\(query.perPage)"),
                     URLQueryItem(name: "sort", value: "-created,-id")]
        if let search = query.search?.trimmingCharacters(in: .whitespacesAndNewlines), !search.isEmpty {
            let literal = search.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
            items.append(URLQueryItem(name: "filter", value: "(email~'\(literal)' || name~'\(literal)')"))
        }
        let list = try await asSuperuser { token in
            try await http.json(PocketBaseList<PocketBaseRecord>.self, "GET", backend.records, query: items, token: token)
        }
        return UserPage(users: list.items.map { $0.user(profileField: profileField) }, page: list.page,
                        perPage: list.perPage, totalItems: list.totalItems)
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
            try await http.json(PocketBaseRecord.self, "PATCH", "\(backend.records)/\(safe)", token: token, body: body,
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

    /// PocketBase issues a non-refreshable token for the user; the duration is capped at one hour.
    func impersonate(_ id: UserID, duration: TimeInterval) async throws -> AuthSession {
        let safe = try PocketBaseBackend.safeID(id)
        let seconds = Int(Impersonation.clamp(duration))
        let reply = try await asSuperuser { token in
            try await http.json(PocketBaseAuthReply.self, "POST", "api/collections/\(backend.configuration.collection)/impersonate/\(safe)",
                                token: token, body: ["duration": .number(Double(seconds))], call: .adminRecord)
        }
        backend.logger.notice("impersonation token issued by PocketBase", metadata: ["subject": "\(safe)"])
        var session = backend.session(from: reply)
        session.refreshable = false
        return session
    }

    func linkExternalAuth(userID: UserID, provider: String, providerID: String) async throws -> ExternalAuth {
        let target = try await record(userID)
        let body: [String: JSONValue] = [
            "collectionRef": .string(target.collectionId ?? ""), "recordRef": .string(target.id),
            "provider": .string(provider), "providerId": .string(providerID),
        ]
        let created = try await asSuperuser { token in
            try await http.json(PocketBaseExternalAuth.self, "POST", "api/collections/_externalAuths/records",
                                token: token, body: body)
        }
        return created.externalAuth
    }
}
