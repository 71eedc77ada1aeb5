import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// One check of a mailed sign-in code with Gatehouse's rules around the seam's
/// `signIn(otpID:code:)`: the source's code checks (`Budget.codeChecks`, one budget for the code
/// page, the PocketBase and InsForge APIs, and the other code checks that share it) and the audit
/// trail (`sign_in.completed`, or `sign_in.failed` with its reason). A wrong code and a code for an
/// address that has none read the same; the backend keeps the code's own five tries. A source out
/// of checks is told so (it says nothing about any account).
public struct EmailCodeSignIn: Sendable {
    let env: Accounts
    /// Names the front-end in the audit data ("pocketbase-api", "insforge-api"); nil for the hosted
    /// pages, whose events have never carried one.
    let via: String?

    public init(env: Accounts, via: String?) { (self.env, self.via) = (env, via) }

    /// Checks `code` against the request `otpID` made for `email` (audited when the front-end knows
    /// it; PocketBase's names only the request); a nil `otpID` (no request known for the address) is
    /// answered like a wrong code. Refusals: `.wrongCode` (wrong, unknown or refused, alike),
    /// `.expired` (expired, used, out of tries), `.throttled` (the source spent its code checks;
    /// nothing reached the backend). Other backend failures are thrown on. Spent with a guest's
    /// session (`guest`), a right code for an address without an account upgrades that guest (`GuestSignUp`).
    public func attempt(
        otpID: String?, code: String, email: String?, upgrading guest: SignedIn? = nil, request: Request
    ) async throws -> SignInResult {
        try env.requireSignIn(by: .emailCode)
        if let refusal = await env.budgets.take(.codeChecks(ip: request.remoteAddress)) {
            await failed(email: email, reason: "rate_limited", request: request)
            return .refused(.throttled(retryAfter: refusal.retryAfter))
        }
        guard let otpID else {
            await failed(email: email, reason: "\(AuthError.invalidCode)", request: request)
            return .refused(.wrongCode)
        }
        do {
            let result =
                if let guest {
                    try await env.pageBackend.guestSignUps().signIn(otpID: otpID, code: code, upgrading: guest.user.id)
                } else {
                    try await env.pageBackend.signIn(otpID: otpID, code: code)
                }
            if let guest {
                await GuestSignUp.recordUpgrade(of: guest, result, method: "email_code", env: env, via: via, request: request)
            }
            return await env.audit.completed(result, ["method": "email_code"], via: via, request: request)
        } catch let error as AuthError {
            switch error {
            case .invalidCode, .codeExpired, .invalidCredentials, .userNotFound:
                await failed(email: email, reason: "\(error)", request: request)
                return .refused(error == .codeExpired ? .expired : .wrongCode)
            default:
                throw error
            }
        }
    }

    private func failed(email: String?, reason: String, request: Request) async {
        var data: [String: JSONValue] = ["method": "email_code", "reason": .string(reason)]
        if let email { data["email"] = .string(email) }
        await env.audit.record(.signInFailed, request: request, data: AuditTrail.data(data, via: via))
    }
}
