import Accounts
import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// `auth/otp/update/email` and `auth/magiclink/update/email` (refresh JWT in the header): the
/// signed-in person asks to move the account to `email`. Descope's contract takes the refresh JWT
/// as the proof (`WayInPolicy.descopeAPI.emailChangeProvenBySession`), so no password is asked:
/// a 6-digit code or a link (to the app's allowed `redirectUrl` where it names one) goes to the new
/// address, and `otp/verify/email {loginId, code}` (the
/// current address as `loginId`) or `magiclink/verify {token}` moves the account there.
/// Gatehouse's login id is the address, so it moves too (`addToLoginIDs` is not kept apart).
struct DescopeEmailUpdateRoutes: Sendable {
    let api: DescopeAPI

    func register(on router: inout Router) {
        for method in ["otp", "magiclink"] {
            api.on(&router, .post, "/v1/auth/\(method)/update/email") { call in
                let signedIn = try await api.holder(call).signedIn
                let proof = method == "otp" ? MailedProof.code : .link(appURL: try await api.appLink(call))
                try api.requireOwnLoginID(call, signedIn)
                let email = try call.required("email").trimmingCharacters(in: .whitespacesAndNewlines)
                guard EmailAddress.isPlausible(email) else {
                    throw DescopeAnswer(400, DescopeCode.invalidArguments, "Invalid arguments", "email must be an email address")
                }
                switch try await EmailChangeRequest(env: api.env.accounts, via: DescopeAPI.via).request(
                    newEmail: email, provenBy: signedIn, confirmedBy: proof, policy: .descopeAPI, request: call.request)
                {
                case .requested: return try .json(MaskedEmail(email))
                case .throttled(let wait): throw AuthError.rateLimited(retryAfter: wait)
                case .passwordRefused: throw AuthError.invalidCredentials
                }
            }
        }
    }
}
