import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// A sign-in code or link the app mailed (`signInSecrets`), checked without spending it — a
/// SuperTokens backend checks before it links the sign-in to a session it holds, then spends it
/// through `EmailCodeSignIn` or `MagicLinkSignIn`. The check takes one of the source's code checks
/// (the budget those share) and one of the code's own tries; a refusal is audited as
/// `sign_in.failed`, like a refused sign-in.
extension AppBackendActs {
    /// What a check came to.
    public enum SignInCheck: Sendable, Equatable {
        case right
        /// Wrong, or unknown: answered alike.
        case wrong
        /// Spent, expired or out of tries.
        case expired
        /// The source spent its code checks; nothing was compared.
        case throttled(retryAfter: Int)
    }

    /// Checks `code` against the request `otpID` made for `email`.
    public func checkSignInCode(otpID: String, code: String, email: String, request: Request) async throws -> SignInCheck {
        try await checking(email: email, method: "email_code", request: request) {
            try await $0.checkSignInCode(otpID: otpID, code: code)
        }
    }

    /// Checks a link's token made for `email`.
    public func checkSignInLink(token: String, email: String, request: Request) async throws -> SignInCheck {
        try await checking(email: email, method: "magic_link", request: request) { try await $0.checkSignInLink(token: token) }
    }

    private func checking(
        email: String, method: String, request: Request, _ check: (any AppDeliveredSecrets) async throws -> Void
    ) async throws -> SignInCheck {
        if let refusal = await env.budgets.take(.codeChecks(ip: request.remoteAddress)) {
            await refused(email: email, method: method, reason: "rate_limited", request: request)
            return .throttled(retryAfter: refusal.retryAfter)
        }
        do {
            try await check(try secrets())
            return .right
        } catch let error as AuthError where error == .invalidCode || error == .codeExpired {
            await refused(email: email, method: method, reason: "\(error)", request: request)
            return error == .codeExpired ? .expired : .wrong
        }
    }

    private func refused(email: String, method: String, reason: String, request: Request) async {
        await env.audit.record(
            .signInFailed, request: request,
            data: AuditTrail.data(["email": .string(email), "method": .string(method), "reason": .string(reason)], via: via))
    }
}
