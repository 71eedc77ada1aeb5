import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets
import WebAuthn

/// `auth/webauthn/…`: DescopeKit's `Descope.passkey` over the passkey owner the pages use
/// (`Passkeys`: challenges, checks, budgets, audit). `start` answers `{transactionId, options,
/// create}` with `options` as a JSON string `{"publicKey": …}`; `finish` takes `{transactionId,
/// response}` with the credential as a JSON string. The relying party is the `origin` the app
/// sends (`https://<its associated domain>`), exactly (scheme, host, port) one the pages accept for
/// the host the call reached, the public URL's, or a registered app's; it is the only origin
/// accepted. `update/start`'s transaction is signed and names its refresh JWT, so `update/finish`
/// needs none; `signup/start` reads `loginId` at the top level (DescopeKit) or in `user` (Python).
/// Two departures from DescopeKit's wire are bridged here: it takes `user.id` as text (so options
/// carry the account id as is) and sends the assertion's `userHandle` as that text (so it is
/// base64url-encoded before the check).
/// `signup` makes a passkey-only account (the pages' owner, under Descope's policy: JWTs at once,
/// the address still to verify); as its `finish` names only the transaction, the transaction id
/// carries the new account's id, address and name beside the challenge — the challenge is bound to
/// the id and address, so a changed one is refused. `signup-in` signs existing passkeys in
/// (`E067010` when the address has none, or no account).
struct DescopeWebAuthnRoutes: Sendable {
    let api: DescopeAPI
    private var passkeys: Passkeys { Passkeys(env: api.env.accounts, via: DescopeAPI.via) }

    /// Descope's "no passkeys for this user".
    static let noPasskeys = "E067010"

    func register(on router: inout Router) {
        for ceremony in ["signin", "signup-in"] {
            api.on(&router, .post, "/v1/auth/webauthn/\(ceremony)/start") { call in
                let rp = try await relyingParty(origin: try call.required("origin"), call: call)
                let options = try await refusingInDescopeShape {
                    try await passkeys.signInOptions(
                        email: try call.loginID(), rp: rp, requiringPasskeys: true, request: call.request)
                }
                return try start(options.challenge, options: ["publicKey": options], create: false)
            }
        }
        api.on(&router, .post, "/v1/auth/webauthn/signup/start") { call in
            let rp = try await relyingParty(origin: try call.required("origin"), call: call)
            let email = try call.loginIDAtTopOrInUser()
            let name = call.userName() ?? ""
            var start = try await refusingInDescopeShape {
                try await passkeys.signUpOptions(
                    email: email, name: name, rp: rp, rpName: RelyingParty.displayName, request: call.request)
            }
            start.publicKey.user.id = start.user
            let transaction = SignUpTransaction(challenge: start.publicKey.challenge, user: start.user, email: email, name: name)
            return try self.start(transaction.id, options: ["publicKey": start.publicKey], create: true)
        }
        api.on(&router, .post, "/v1/auth/webauthn/signup/finish") { call in
            guard let transaction = SignUpTransaction(id: try call.required("transactionId")) else {
                throw DescopeAnswer(400, DescopeCode.invalidArguments, "Invalid arguments", "transactionId is not a sign-up's")
            }
            let (json, clientData) = try credential(call, assertion: false, challenge: transaction.challenge)
            let rp = try await relyingParty(origin: clientData.origin, call: call)
            let outcome = try await refusingInDescopeShape {
                try await passkeys.signUp(
                    json, email: transaction.email, name: transaction.name, user: transaction.user, rp: rp,
                    policy: .descopeAPI, request: call.request)
            }
            guard let session = outcome.session else { throw AuthError.emailNotVerified(email: transaction.email) }
            return try await api.signedIn(session, amr: ["webauthn"], call: call, firstSeen: true)
        }
        api.on(&router, .post, "/v1/auth/webauthn/signin/finish") { call in
            let (json, clientData) = try credential(call, assertion: true)
            let rp = try await relyingParty(origin: clientData.origin, call: call)
            switch await passkeys.signIn(json, rp: rp, policy: .descopeAPI, request: call.request) {
            case .signedIn(let session): return try await api.signedIn(session, amr: ["webauthn"], call: call)
            case .refused(let error): throw Self.answer(error)
            }
        }
        api.on(&router, .post, "/v1/auth/webauthn/update/start") { call in
            guard let refreshJwt = call.refreshJwt else { throw DescopeAnswer.unauthorized }
            let signedIn = try await api.holder(call).signedIn
            try api.requireOwnLoginID(call, signedIn)
            let rp = try await relyingParty(origin: try call.required("origin"), call: call)
            var options = try await refusingInDescopeShape {
                try await passkeys.registrationOptions(
                    for: signedIn, rp: rp, rpName: RelyingParty.displayName, request: call.request, policy: .descopeAPI)
            }
            options.user.id = signedIn.user.id.rawValue
            // `finish` carries no refresh JWT (the Python SDK sends none): the transaction binds the
            // challenge to this one, signed by this server.
            let transaction = try api.tokens.state(
                Self.updateState, ["challenge": .string(options.challenge), "refresh": .string(refreshJwt)],
                project: call.project)
            return try start(transaction, options: ["publicKey": options], create: true)
        }
        api.on(&router, .post, "/v1/auth/webauthn/update/finish") { call in
            guard let state = api.tokens.state(Self.updateState, try call.required("transactionId"), project: call.project),
                let challenge = state["challenge"]?.stringValue, let refreshJwt = state["refresh"]?.stringValue
            else {
                throw DescopeAnswer(
                    400, DescopeCode.invalidArguments, "Invalid arguments", "transactionId is not a live update's")
            }
            guard let signedIn = await api.tokens.holder(of: refreshJwt, project: call.project)?.signedIn else {
                throw DescopeAnswer.unauthorized
            }
            let (json, clientData) = try credential(call, assertion: false, challenge: challenge)
            let rp = try await relyingParty(origin: clientData.origin, call: call)
            _ = try await refusingInDescopeShape {
                try await passkeys.register(json, name: nil, for: signedIn, rp: rp, request: call.request, policy: .descopeAPI)
            }
            return .json(raw: "{}")
        }
    }

    /// The `drn` of an `update/start`'s transaction: its challenge and the refresh JWT it was asked with.
    private static let updateState = "webauthn-update"

    /// `{transactionId, options, create}`; the transaction is the challenge itself, which the
    /// finish finds again in the client data, or (sign-up, update) a value that carries it.
    private func start(_ transaction: String, options: some Encodable, create: Bool) throws -> Response {
        let text = String(decoding: try JSONEncoder().encode(options), as: UTF8.self)
        return try .json(StartResponse(transactionId: transaction, options: text, create: create))
    }

    private struct StartResponse: Encodable {
        var transactionId: String
        var options: String
        var create: Bool
    }

    /// The credential JSON of a `finish` (its `userHandle` made base64url, as DescopeKit sends it as
    /// text) and its client data, whose origin names the relying party; the client data must answer
    /// `challenge` (by default the transaction id itself).
    private func credential(
        _ call: DescopeAPI.Call, assertion: Bool, challenge: String? = nil
    ) throws -> ([UInt8], ClientData) {
        let transaction = try challenge ?? call.required("transactionId")
        guard var wire = JSONValue(parsing: try call.required("response")), case .object(var credential) = wire else {
            throw DescopeAnswer(400, DescopeCode.invalidArguments, "Invalid arguments", "response must be a credential's JSON")
        }
        if assertion, case .object(var response)? = credential["response"], case .string(let handle)? = response["userHandle"] {
            response["userHandle"] = .string(Base64URL.encode(Array(handle.utf8)))
            credential["response"] = .object(response)
            wire = .object(credential)
        }
        guard case .object(let response)? = credential["response"], case .string(let encoded)? = response["clientDataJSON"],
            let clientDataJSON = Base64URL.decode(encoded), let clientData = try? ClientData(json: clientDataJSON),
            clientData.challenge == transaction
        else {
            throw DescopeAnswer(400, DescopeCode.invalidArguments, "Invalid arguments", "response is not for this transaction")
        }
        return (Array(try JSONEncoder().encode(wire)), clientData)
    }

    /// The relying party for `origin`, which must be exactly (scheme, host, port) an origin the
    /// pages accept for the host this call reached, the public URL's, or a registered app's
    /// (`DescopeAppAddresses.appOrigins`: an app's associated domain); its host is the RP id.
    private func relyingParty(origin: String, call: DescopeAPI.Call) async throws -> RelyingParty {
        let configuration = api.env.configuration
        var allowed = try await api.addresses.appOrigins()
        allowed.formUnion(RelyingParty.serving(call.request, configuration: configuration)?.origins ?? [])
        if let publicOrigin = DescopeAppAddresses.origin(of: configuration.publicBaseURL) { allowed.insert(publicOrigin) }
        guard let url = URL(string: origin), url.path.isEmpty, url.query == nil, let host = url.host?.lowercased(),
            let normalized = DescopeAppAddresses.origin(of: origin),
            allowed.contains(where: { DescopeAppAddresses.origin(of: $0) == normalized })
        else {
            throw DescopeAnswer(400, DescopeCode.invalidArguments, "Invalid arguments", "origin is not one this server serves")
        }
        return RelyingParty(id: host, origins: [origin])
    }

    private func refusingInDescopeShape<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as PasskeyError { throw Self.answer(error) }
    }

    static func answer(_ error: PasskeyError) -> DescopeAnswer {
        switch error {
        case .noPasskeys: DescopeAnswer(400, noPasskeys, "No passkeys", error.message)
        case .rateLimited(let wait):
            DescopeAnswer(429, DescopeCode.rateLimited, "Too many requests", "Try again in \(wait) seconds")
        case .unknownCredential, .otherAccount, .accountUnavailable:
            DescopeAnswer(401, DescopeCode.invalidCredentials, "Invalid credentials", error.message)
        default: DescopeAnswer(400, DescopeCode.badRequest, "Passkey refused", error.message)
        }
    }
}

/// A Descope passkey sign-up's transaction id: the challenge, then the new account's id, address and
/// name (base64url), dot-separated. Nothing in it is secret; the challenge is bound to the id and
/// address, so the finish cannot name others.
struct SignUpTransaction: Equatable {
    var challenge: String
    var user: String
    var email: String
    var name: String

    init(challenge: String, user: String, email: String, name: String) {
        (self.challenge, self.user, self.email, self.name) = (challenge, user, email, name)
    }

    init?(id: String) {
        let parts = id.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, let email = Base64URL.decode(parts[2]), let name = Base64URL.decode(parts[3]) else { return nil }
        (challenge, user) = (parts[0], parts[1])
        (self.email, self.name) = (String(decoding: email, as: UTF8.self), String(decoding: name, as: UTF8.self))
    }

    var id: String {
        [challenge, user, Base64URL.encode(Array(email.utf8)), Base64URL.encode(Array(name.utf8))].joined(separator: ".")
    }
}
