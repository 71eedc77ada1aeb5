import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real PocketBase (≥ 0.23) behind `AuthClient`, over HTTP.
///
/// Accounts are records of an auth collection (`users` unless configured). PocketBase verifies
/// email by link only: the "code" `verifyEmail(email:code:)` takes is the token from the mailed
/// link. Its tokens are stateless JWTs refreshed with themselves, so sessions carry no separate
/// refresh token and signing out only forgets the token. Administration signs in as a
/// `_superusers` record with the configured credentials.
public final class PocketBaseBackend: AuthAPI {
    public struct Configuration: Sendable {
        public var baseURL: URL
        /// The auth collection holding the accounts.
        public var collection: String
        /// A `_superusers` account for administration; without it admin calls report `.notSupported`.
        public var superuser: (email: String, password: String)?
        /// A JSON field of the collection holding profile keys other than `name` (created by
        /// `prepareCollection`); nil keeps profiles to the `name` field.
        public var profileField: String?
        /// Refuse password sign-in to unverified accounts with `.emailNotVerified`, like the
        /// embedded backend (PocketBase itself lets them in unless its auth rule says otherwise).
        public var requireVerifiedEmail: Bool

        public init(
            baseURL: URL, collection: String = "users", superuser: (email: String, password: String)? = nil,
            profileField: String? = "profile", requireVerifiedEmail: Bool = true
        ) {
            self.baseURL = baseURL
            self.collection = collection
            self.superuser = superuser
            self.profileField = profileField
            self.requireVerifiedEmail = requireVerifiedEmail
        }
    }

    public let configuration: Configuration
    let http: PocketBaseHTTP
    let superuser: SuperuserLogin?
    let logger: Logger
    /// Compared with token expiry claims only; PocketBase itself decides what is expired.
    let clock: @Sendable () -> Date

    public init(
        configuration: Configuration, session: URLSession = URLSession(configuration: .ephemeral),
        clock: @escaping @Sendable () -> Date = Date.init, logger: Logger = Logger(label: "gatehouse.pocketbase")
    ) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        let http = PocketBaseHTTP(baseURL: configuration.baseURL, session: session, logger: logger)
        self.http = http
        superuser = configuration.superuser.map { SuperuserLogin(http: http, email: $0.email, password: $0.password) }
    }

    public var capabilities: Set<Capability> {
        var capabilities: Set<Capability> = [
            .emailLinkVerification, .profile, .externalAuths, .sessionRefresh, .authMethods, .emailChange, .emailOTP,
            .passwordReset, .passwordChange, .mfa
        ]
        if superuser != nil { capabilities.formUnion([.userAdministration, .impersonation]) }
        return capabilities
    }

    public var admin: any AuthAdminAPI { PocketBaseAdmin(backend: self) }

    /// PocketBase verifies addresses by mailed link only.
    public var verificationMode: VerificationMode { .link }

    var records: String { "api/collections/\(configuration.collection)/records" }
    var collectionPath: String { "api/collections/\(configuration.collection)" }

    public func signUp(_ request: SignUpRequest) async throws -> SignUpOutcome {
        var body: [String: JSONValue] = [
            "email": .string(request.email.trimmingCharacters(in: .whitespacesAndNewlines)),
            "password": .string(request.password), "passwordConfirm": .string(request.password),
            "emailVisibility": .bool(false)
        ]
        if let name = request.name, !name.isEmpty { body["name"] = .string(name) }
        // The same password rules as the embedded backend, before PocketBase applies its own.
        if let problem = PasswordPolicy.problem(with: request.password) {
            throw AuthError.validation([FieldError(field: "password", message: problem)])
        }
        let record = try await http.json(PocketBaseRecord.self, "POST", records, body: body, call: .signUp)
        var user = record.user(profileField: configuration.profileField)
        if user.email.isEmpty { user.email = request.email }
        logger.info("account created on PocketBase", metadata: ["user": "\(user.id)"])
        guard configuration.requireVerifiedEmail else {
            // A collection with MFA on asks its second method even now: the account is made, unsigned-in.
            let session = try await signIn(email: request.email, password: request.password).session
            return SignUpOutcome(user: session?.user ?? user, session: session, requireEmailVerification: false)
        }
        // PocketBase's create mails nothing; the pages ask for the mail here, an app asks itself.
        if !request.appAsksForVerificationMail { try await resendVerificationEmail(email: request.email) }
        return SignUpOutcome(user: user, session: nil, requireEmailVerification: true)
    }

    /// PocketBase has no 6-digit codes: `code` is the token from the mailed link. It must have
    /// been issued for `email`, when one is given (InsForge's `POST /email/verify` may send none).
    public func verifyEmail(email: String, code: String) async throws -> VerificationOutcome {
        guard let claims = PocketBaseToken.decode(code), claims.type == "verification",
            email.isEmpty || EmailAddress.normalize(claims.email ?? "") == EmailAddress.normalize(email)
        else { throw AuthError.invalidCode }
        return try await verifyEmailLink(token: code)
    }

    /// Confirms the token; the account is read back through the superuser when one is configured.
    public func verifyEmailLink(token: String) async throws -> VerificationOutcome {
        guard let claims = PocketBaseToken.decode(token), claims.type == "verification" else { throw AuthError.invalidCode }
        if let expiresAt = claims.expiresAt, expiresAt < clock() { throw AuthError.codeExpired }
        try await http.send("POST", "\(collectionPath)/confirm-verification", body: ["token": .string(token)], call: .verify)
        logger.info("email verified on PocketBase", metadata: ["user": "\(claims.id ?? "?")"])
        guard let id = claims.id else { return VerificationOutcome(user: nil, session: nil) }
        if superuser != nil { return VerificationOutcome(user: try await admin.user(UserID(id)), session: nil) }
        // Without a superuser the record cannot be read back; the token's claims say whose it was.
        let now = clock()
        return VerificationOutcome(
            user: User(
                id: UserID(id), email: claims.email ?? "", emailVerified: true,
                profile: Profile(), createdAt: now, updatedAt: now), session: nil)
    }

    public func resendVerificationEmail(email: String) async throws {
        try await http.send(
            "POST", "\(collectionPath)/request-verification",
            body: ["email": .string(email.trimmingCharacters(in: .whitespacesAndNewlines))])
    }

    public func signIn(email: String, password: String) async throws -> SignInResult {
        let reply: PocketBaseAuthReply
        do {
            reply = try await http.json(
                PocketBaseAuthReply.self, "POST", "\(collectionPath)/auth-with-password",
                body: ["identity": .string(email.trimmingCharacters(in: .whitespacesAndNewlines)), "password": .string(password)],
                call: .signIn)
        } catch AuthError.emailNotVerified {
            throw AuthError.emailNotVerified(email: email)
        } catch let owed as SecondStepOwed {
            return .secondStep(owed.challenge)
        }
        let session = session(from: reply)
        if configuration.requireVerifiedEmail && !session.user.emailVerified {
            throw AuthError.emailNotVerified(email: session.user.email)
        }
        return .signedIn(session)
    }

    /// PocketBase tokens are stateless; there is nothing to revoke short of rotating the account's tokenKey.
    public func signOut(_ session: AuthSession) async throws {}

    public func currentUser(_ session: AuthSession) async throws -> User {
        if session.expires(within: 0, of: clock()) { throw AuthError.sessionExpired }
        let record = try await http.json(
            PocketBaseRecord.self, "GET", "\(records)/\(try Self.safeID(session.user.id))",
            token: session.accessToken, call: .ownRecord)
        return record.user(profileField: configuration.profileField)
    }

    /// Reads the record, merges `patch` into it (`name` into PocketBase's `name` field, every other
    /// key into the profile JSON field) and writes it back as the user. Two concurrent patches of
    /// different JSON keys may overwrite each other: PocketBase has no partial JSON update.
    public func setProfile(_ patch: [String: JSONValue], session: AuthSession) async throws -> User {
        let id = try Self.safeID(session.user.id)
        let current = try await currentUser(session)
        let body = try profileBody(current: current.profile, patch: patch)
        let record = try await http.json(
            PocketBaseRecord.self, "PATCH", "\(records)/\(id)", token: session.accessToken,
            body: body, call: .ownRecord)
        logger.info("profile updated on PocketBase", metadata: ["user": "\(id)"])
        return record.user(profileField: configuration.profileField)
    }

    /// The PATCH body that makes the record hold `current.merging(patch)`.
    func profileBody(current: Profile, patch: [String: JSONValue]) throws -> [String: JSONValue] {
        let merged = current.merging(patch)
        var body: [String: JSONValue] = [:]
        if patch.keys.contains("name") { body["name"] = .string(merged.name ?? "") }
        let others = patch.keys.filter { $0 != "name" }
        if !others.isEmpty {
            guard let profileField = configuration.profileField else { throw AuthError.notSupported(.profile) }
            body[profileField] = .object(merged.fields.filter { $0.key != "name" })
        }
        return body
    }

    public func refresh(_ session: AuthSession) async throws -> AuthSession {
        guard session.refreshable else { throw AuthError.sessionNotRefreshable }
        let reply = try await http.json(
            PocketBaseAuthReply.self, "POST", "\(collectionPath)/auth-refresh",
            token: session.accessToken, call: .ownRecord)
        return self.session(from: reply)
    }

    public func authMethods() async throws -> AuthMethods {
        struct Reply: Decodable {
            struct Toggle: Decodable { var enabled: Bool? }
            struct OAuth: Decodable {
                struct Provider: Decodable { var name: String }
                var enabled: Bool?
                var providers: [Provider]?
            }
            var password: Toggle?
            var otp: Toggle?
            var oauth2: OAuth?
        }
        let reply = try await http.json(Reply.self, "GET", "\(collectionPath)/auth-methods")
        return AuthMethods(
            password: reply.password?.enabled ?? false, emailCode: reply.otp?.enabled ?? false,
            emailLink: true, oauth2Providers: (reply.oauth2?.providers ?? []).map(\.name))
    }

    public func externalAuths(userID: UserID, session: AuthSession) async throws -> [ExternalAuth] {
        try await externalAuthRecords(userID: userID, token: session.accessToken).map(\.externalAuth)
    }

    public func unlinkExternalAuth(userID: UserID, provider: String, session: AuthSession) async throws {
        let linked = try await externalAuthRecords(userID: userID, token: session.accessToken)
        guard let record = linked.first(where: { $0.provider == provider }) else {
            throw AuthError.server(status: 404, code: "not_found", message: "No linked \(provider) account.")
        }
        try await http.send(
            "DELETE", "api/collections/_externalAuths/records/\(try Self.safeID(UserID(record.id)))",
            token: session.accessToken)
        logger.info("external auth unlinked on PocketBase", metadata: ["user": "\(userID)", "provider": "\(provider)"])
    }

    func externalAuthRecords(userID: UserID, token: String) async throws -> [PocketBaseExternalAuth] {
        let id = try Self.safeID(userID)
        let list = try await http.json(
            PocketBaseList<PocketBaseExternalAuth>.self, "GET", "api/collections/_externalAuths/records",
            query: [URLQueryItem(name: "filter", value: "recordRef='\(id)'"), URLQueryItem(name: "perPage", value: "200")],
            token: token, call: .ownRecord)
        return list.items
    }

    func session(from reply: PocketBaseAuthReply) -> AuthSession {
        let claims = PocketBaseToken.decode(reply.token)
        return AuthSession(
            accessToken: reply.token, refreshToken: nil, expiresAt: claims?.expiresAt,
            refreshable: claims?.refreshable ?? true, user: reply.record.user(profileField: configuration.profileField))
    }

    /// Record ids go into paths and filters: only PocketBase's own id alphabet is let through.
    static func safeID(_ id: UserID) throws -> String {
        let text = id.rawValue
        guard !text.isEmpty, text.count <= 64, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            throw AuthError.userNotFound
        }
        return text
    }
}
