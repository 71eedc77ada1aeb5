import Accounts
import AuthCore
import Foundation
import HTTPServer
import Secrets

/// The account lifecycle as PocketBase's API offers it — password reset, one-time codes, email
/// change — through the operations the pages use (`MailRequests`, `MailedCodeChecks`,
/// `EmailCodeSignIn`). Requests answer 204 (or a fake `otpId`) for unknown addresses and for an
/// address over its mail budget, as PocketBase does; a source over its budget gets 429.
struct PocketBaseLifecycleRoutes: Sendable {
    let api: PocketBaseAPI
    var env: PageEnvironment { api.env }

    func register(on router: inout Router) {
        let base = "/api/collections/:collection"
        api.on(&router, .post, base + "/request-password-reset") { request, parameters in
            _ = try api.collection(parameters, allowed: [.users])
            if let email = PocketBaseAPI.text(try api.body(request), "email"), EmailAddress.isPlausible(email) {
                try PocketBaseAPI.answer(
                    try await MailRequests(env: env.accounts, via: "pocketbase-api").passwordReset(email: email, request: request)
                )
            }
            return Response(status: 204)
        }
        api.on(&router, .post, base + "/confirm-password-reset") { request, parameters in
            _ = try api.collection(parameters, allowed: [.users])
            let body = try api.body(request)
            let token = try PocketBaseAuthRoutes.token(body)
            let password = try Self.newPassword(body)
            _ = try await MailedCodeChecks(env: env.accounts, via: "pocketbase-api").completeReset(
                token: token, newPassword: password, request: request)
            return Response(status: 204)
        }
        api.on(&router, .post, base + "/request-otp") { request, parameters in
            _ = try api.collection(parameters, allowed: [.users])
            guard env.capabilities.contains(.emailOTP) else {
                throw PocketBaseAnswer(403, "The collection is not configured to allow OTP authentication.")
            }
            let body = try api.body(request)
            guard let email = PocketBaseAPI.text(body, "email"), EmailAddress.isPlausible(email) else {
                throw PocketBaseAnswer(
                    400, "An error occurred while validating the submitted data.",
                    data: ["email": .init(code: "validation_is_email", message: "Must be a valid email address.")])
            }
            switch try await MailRequests(env: env.accounts, via: "pocketbase-api").signInCode(
                email: email, allowSignUp: false, request: request)
            {
            case .sent(let otpID):
                return try .json(["otpId": otpID])
            case .held(let refusal) where refusal.budget.countsSource:
                throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
            case .held:
                // An id like any other that no code will match, as for an unknown address.
                return try .json(["otpId": SecureRandom.token()])
            }
        }
        api.on(&router, .post, base + "/auth-with-otp") { request, parameters in
            let collection = try api.collection(parameters, allowed: [.users, .superusers])
            let body = try api.body(request)
            let missing = PocketBaseAPI.required(body, ["otpId", "password"])
            guard missing.isEmpty else {
                throw PocketBaseAnswer(400, "An error occurred while validating the submitted data.", data: missing)
            }
            if collection == .superusers {
                return try await PocketBaseMFA(api: api).completeSuperuser(
                    request, mfaID: PocketBaseAPI.text(body, "mfaId") ?? "", password: PocketBaseAPI.text(body, "password") ?? "")
            }
            if let mfaID = PocketBaseAPI.text(body, "mfaId"), !mfaID.isEmpty {
                return try await PocketBaseMFA(api: api).complete(
                    request, mfaID: mfaID, otpID: PocketBaseAPI.text(body, "otpId") ?? "",
                    password: PocketBaseAPI.text(body, "password") ?? "")
            }
            // A second step owed: the mailed code was the first; the account's authenticator app is the second.
            return try await PocketBaseAuthRoutes(api: api).answer(
                try await EmailCodeSignIn(env: env.accounts, via: "pocketbase-api").attempt(
                    otpID: PocketBaseAPI.text(body, "otpId") ?? "", code: PocketBaseAPI.text(body, "password") ?? "",
                    email: nil, request: request), request: request
            ) { refusal in
                if case .throttled = refusal { return refusal.error }
                return PocketBaseAnswer(400, "Failed to authenticate.")
            }
        }
        api.on(&router, .post, base + "/request-email-change") { request, parameters in
            _ = try api.collection(parameters, allowed: [.users])
            guard case .user(let signedIn, _) = await api.tokens.caller(request) else {
                throw PocketBaseAnswer(401, PocketBaseError.standardMessage(for: 401))
            }
            let body = try api.body(request)
            guard let newEmail = PocketBaseAPI.text(body, "newEmail"), EmailAddress.isPlausible(newEmail) else {
                throw PocketBaseAnswer(
                    400, "An error occurred while validating the submitted data.",
                    data: ["newEmail": .init(code: "validation_is_email", message: "Must be a valid email address.")])
            }
            // No password here, as PocketBase takes none: `confirm-email-change` asks for it.
            let outcome: EmailChangeRequest.Outcome
            do {
                outcome = try await EmailChangeRequest(env: env.accounts, via: "pocketbase-api").request(
                    newEmail: newEmail, password: nil, by: signedIn, request: request)
            } catch ImpersonationRefusal.credentialChange {
                throw PocketBaseAnswer(403, "An impersonation token can't change the account's email.")
            }
            if case .throttled(let wait) = outcome { throw AuthError.rateLimited(retryAfter: wait) }
            return Response(status: 204)
        }
        api.on(&router, .post, base + "/confirm-email-change") { request, parameters in
            _ = try api.collection(parameters, allowed: [.users])
            let body = try api.body(request)
            let token = try PocketBaseAuthRoutes.token(body)
            // PocketBase's field errors: the password is required, and checked for the token's account.
            guard let password = PocketBaseAPI.text(body, "password"), !password.isEmpty else {
                throw Self.passwordProblem("validation_required", "Cannot be blank.")
            }
            do {
                _ = try await MailedCodeChecks(env: env.accounts, via: "pocketbase-api").completeEmailChange(
                    token: token, password: password, request: request)
            } catch AuthError.invalidCredentials {
                throw Self.passwordProblem("validation_invalid_password", "Missing or invalid auth record password.")
            }
            return Response(status: 204)
        }
    }

    /// PocketBase's validation answer naming the `password` field.
    private static func passwordProblem(_ code: String, _ message: String) -> PocketBaseAnswer {
        PocketBaseAnswer(
            400, "An error occurred while validating the submitted data.",
            data: ["password": .init(code: code, message: message)])
    }

    /// `password` and its matching `passwordConfirm`, or PocketBase's field errors.
    private static func newPassword(_ body: [String: JSONValue]) throws -> String {
        let missing = PocketBaseAPI.required(body, ["password", "passwordConfirm"])
        guard missing.isEmpty else {
            throw PocketBaseAnswer(400, "An error occurred while validating the submitted data.", data: missing)
        }
        let password = PocketBaseAPI.text(body, "password") ?? ""
        guard PocketBaseAPI.text(body, "passwordConfirm") == password else {
            throw PocketBaseAnswer(
                400, "An error occurred while validating the submitted data.",
                data: ["passwordConfirm": .init(code: "validation_values_mismatch", message: "Values don't match.")])
        }
        return password
    }
}
