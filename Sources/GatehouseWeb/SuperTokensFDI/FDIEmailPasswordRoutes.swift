import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The emailpassword recipe's FDI routes: `signup` (made with a guest's session, it upgrades the
/// guest: `GuestSignUp`) and `signin` (a session at once: an unproven address shows in the `st-ev` claim), `emailpassword/email/exists`, and the reset by mailed
/// token (Gatehouse mails the link; its token is what `user/password/reset` spends).
struct FDIEmailPasswordRoutes: Sendable {
    /// The recipe's factor id in the `st-mfa` claim.
    static let factor = "emailpassword"
    let fdi: SuperTokensFDI
    var env: PageEnvironment { fdi.env }

    func register(on router: inout Router) {
        fdi.on(&router, .post, "/signup", signUp)
        fdi.on(&router, .post, "/signin", signIn)
        fdi.on(&router, .get, "/emailpassword/email/exists", emailExists)
        fdi.on(&router, .post, "/user/password/reset/token", resetToken)
        fdi.on(&router, .post, "/user/password/reset", reset)
    }

    private func signUp(_ request: Request) async throws -> Response {
        let fields = try SuperTokensFDI.formFields(try SuperTokensFDI.body(request), required: ["email", "password"])
        let email = (fields["email"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let signUp = SignUp(env: env.accounts, via: SuperTokensFDI.via, policy: .superTokensFrontend)
        let asked = SignUpRequest(email: email, password: fields["password"] ?? "")
        let outcome: SignUpOutcome
        do {
            if let guest = try await fdi.sessions.guest(request) {
                outcome = try await fdi.guests.upgrade(guest.signedIn, to: asked, for: .browserSession, request: request)
            } else {
                outcome = try await signUp.attempt(asked, for: .browserSession, request: request)
            }
        } catch AuthError.emailExists {
            await signUp.refusedExistingAddress(email, request: request)
            return SuperTokensFDI.fieldError([("email", "This email already exists. Please sign in instead.")])
        } catch AuthError.validation(let errors) {
            return Self.fieldErrors(errors)
        }
        guard let session = outcome.session else { throw FDIRefusal.unauthorised }
        return try await fdi.sessions.opening(
            session, factors: [Self.factor], request: request, body: Self.signedIn(outcome.user))
    }

    /// A password sign-in. For an account that owes a second step it answers as the SDK's MFA
    /// recipe does, with a token whose `st-mfa` is unmet and no session until `totp/verify`.
    private func signIn(_ request: Request) async throws -> Response {
        let fields = try SuperTokensFDI.formFields(try SuperTokensFDI.body(request), required: ["email", "password"])
        let email = (fields["email"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let signIn = PasswordSignIn(env: env.accounts, via: SuperTokensFDI.via, policy: .superTokensFrontend)
        switch try await signIn.attempt(email: email, password: fields["password"] ?? "", request: request) {
        case .signedIn(let session):
            return try await fdi.sessions.opening(
                session, factors: [Self.factor], request: request, body: Self.signedIn(session.user))
        case .secondStep(let challenge):
            return try await fdi.sessions.owing(challenge, factor: Self.factor, request: request, body: Self.signedIn)
        case .refused(.invalidCredentials), .refused(.emailNotVerified):
            return SuperTokensFDI.status("WRONG_CREDENTIALS_ERROR")
        case .refused(.disabled):
            return SuperTokensFDI.status("SIGN_IN_NOT_ALLOWED", ["reason": "The account is disabled."])
        case .refused(let refusal):
            throw refusal.error
        }
    }

    private func emailExists(_ request: Request) async throws -> Response {
        guard let email = try request.query.single("email"), !email.isEmpty else {
            throw FDIRefusal.badInput("Please provide the email as a GET param")
        }
        let signUp = SignUp(env: env.accounts, via: SuperTokensFDI.via, policy: .superTokensFrontend)
        return SuperTokensFDI.status("OK", ["exists": .bool(try await signUp.addressTaken(email, request: request))])
    }

    /// A reset mail (Gatehouse's, with its link); `OK` whether or not the address has an account.
    private func resetToken(_ request: Request) async throws -> Response {
        let fields = try SuperTokensFDI.formFields(try SuperTokensFDI.body(request), required: ["email"])
        let email = (fields["email"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let requests = MailRequests(env: env.accounts, via: SuperTokensFDI.via)
        if case .held(let refusal) = try await requests.passwordReset(email: email, request: request) {
            throw FDIRefusal.rateLimited(refusal.retryAfter)
        }
        return SuperTokensFDI.status("OK")
    }

    private func reset(_ request: Request) async throws -> Response {
        let body = try SuperTokensFDI.body(request)
        let token = try SuperTokensFDI.text(body, "token")
        let fields = try SuperTokensFDI.formFields(body, required: ["password"])
        do {
            _ = try await MailedCodeChecks(env: env.accounts, via: SuperTokensFDI.via).completeReset(
                token: token, newPassword: fields["password"] ?? "", request: request)
            return SuperTokensFDI.status("OK")
        } catch AuthError.invalidCode, AuthError.codeExpired {
            return SuperTokensFDI.status("RESET_PASSWORD_INVALID_TOKEN_ERROR")
        } catch AuthError.validation(let errors) {
            return Self.fieldErrors(errors, default: "password")
        }
    }

    /// Sign-up's and sign-in's body: the account as the SDK's `User`.
    static func signedIn(_ user: User) -> Response {
        SuperTokensFDI.status("OK", ["user": SuperTokensUser(user: user).json])
    }

    /// The owner's refusals as `FIELD_ERROR`s on the form's fields.
    static func fieldErrors(_ errors: [FieldError], default field: String = "email") -> Response {
        SuperTokensFDI.fieldError(
            errors.map { (["email", "password"].contains($0.field) ? $0.field : field, $0.message) })
    }
}
