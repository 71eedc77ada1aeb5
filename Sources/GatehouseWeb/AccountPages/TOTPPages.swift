import Accounts
import AuthCore
import Foundation
import HTTPServer
import TwoFactor

/// Two-step sign-in on `/account/security`: its status; turning it on (the key as an inline
/// server-rendered SVG QR code, the `otpauth://` URL and the base32 key, then a first code to
/// confirm, then the ten recovery codes shown once); turning it off and new recovery codes, both
/// after the password again. Every change is refused while support staff impersonate the person.
struct TOTPPages: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.page(.post, "/account/security/totp/begin", env) { visit in
            try await signedIn(visit) { signedIn in
                do {
                    let enrollment = try await app.beginEnrollment(signedIn)
                    return try await page(visit, signedIn, ["enrolling": enrolling(enrollment)], errors: FormErrors())
                } catch let error as AuthError {
                    return try await failed(visit, signedIn, field: "form", error)
                }
            }
        }
        router.page(.post, "/account/security/totp/confirm", env, confirm)
        router.page(.post, "/account/security/totp/disable", env) { visit in
            try await signedIn(visit) { signedIn in
                do {
                    if try await app.disable(password: try visit.field("password"), signedIn, request: visit.request) != nil {
                        return try await passwordRefused(visit, signedIn, field: "disable_password")
                    }
                } catch let error as AuthError {
                    return try await failed(visit, signedIn, field: "disable_password", error)
                }
                return .redirect(to: "/account/security?notice=\(Notice.totpOff.rawValue)")
            }
        }
        router.page(.post, "/account/security/totp/recovery-codes", env) { visit in
            try await signedIn(visit) { signedIn in
                do {
                    let result = try await app.regenerateRecoveryCodes(
                        password: try visit.field("password"), signedIn, request: visit.request)
                    guard case .success(let codes) = result else {
                        return try await passwordRefused(visit, signedIn, field: "codes_password")
                    }
                    return try await page(
                        visit, signedIn, RecoveryCodesFile.context(codes, for: signedIn.user.email), errors: FormErrors())
                } catch let error as AuthError {
                    return try await failed(visit, signedIn, field: "codes_password", error)
                }
            }
        }
    }

    private var app: AuthenticatorApp { AuthenticatorApp(env: env.accounts) }

    /// Whether the account has a password: one without (a passkey's, a provider's) proves itself
    /// with a code from the app, and the section never speaks of a password to it.
    private func hasPassword(_ signedIn: SignedIn) async throws -> Bool {
        try await PasswordChange(env: env.accounts).hasPassword(signedIn)
    }

    /// The section's context for the page as it stands: supported, on or off, codes left.
    func section(_ visit: Visit, _ signedIn: SignedIn, _ extra: [String: Any] = [:]) async throws -> [String: Any] {
        var context: [String: Any] = [
            "supported": env.capabilities.contains(.totp), "impersonating": visit.isImpersonating,
            "hasPassword": try await hasPassword(signedIn)
        ]
        if env.capabilities.contains(.totp) {
            let status = try await app.status(of: signedIn)
            context["enabled"] = status.enabled
            context["recoveryCodesLeft"] = status.recoveryCodesLeft
        }
        return context.merging(extra) { $1 }
    }

    private func confirm(_ visit: Visit) async throws -> Response {
        try await signedIn(visit) { signedIn in
            let code = try visit.field("code").filter { !$0.isWhitespace }
            var errors = FormErrors()
            guard code.count == 6, code.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                errors.add("totp_code", "Enter the 6-digit code your authenticator app shows for Gatehouse.")
                return try await reenrol(visit, signedIn, errors: errors)
            }
            do {
                let codes = try await app.confirmEnrollment(code: code, signedIn, request: visit.request)
                return try await page(
                    visit, signedIn, RecoveryCodesFile.context(codes, for: signedIn.user.email).merging(["enabled": true]) { $1 },
                    errors: FormErrors())
            } catch AuthError.invalidCode {
                errors.add(
                    "totp_code",
                    "That code isn't right. Check that your app shows the Gatehouse key below, and enter its current code.")
            } catch AuthError.codeExpired {
                errors.add("totp_code", "That key expired before it was confirmed. Scan this new one.")
            } catch AuthError.rateLimited(let wait) {
                errors.add("totp_code", AuthError.rateLimited(retryAfter: wait).pageMessage)
                return try await reenrol(visit, signedIn, errors: errors, status: 429)
            } catch let error as AuthError {
                return try await failed(visit, signedIn, field: "form", error)
            }
            return try await reenrol(visit, signedIn, errors: errors)
        }
    }

    /// The enrolment again after a refused code: the same pending key while it is fresh.
    private func reenrol(_ visit: Visit, _ signedIn: SignedIn, errors: FormErrors, status: Int = 422) async throws -> Response {
        do {
            let enrollment = try await app.beginEnrollment(signedIn)
            return try await page(visit, signedIn, ["enrolling": enrolling(enrollment)], errors: errors, status: status)
        } catch let error as AuthError {
            return try await failed(visit, signedIn, field: "form", error)
        }
    }

    /// A wrong password (or code, on an account without one), or a try not checked because the
    /// account or source is throttled: one answer.
    private func passwordRefused(_ visit: Visit, _ signedIn: SignedIn, field: String) async throws -> Response {
        var errors = FormErrors()
        errors.add(field, try await hasPassword(signedIn) ? "That password isn't right." : "That code isn't right.")
        return try await page(visit, signedIn, errors: errors, status: 422)
    }

    private func failed(_ visit: Visit, _ signedIn: SignedIn, field: String, _ error: AuthError) async throws -> Response {
        var errors = FormErrors()
        if case .validation(let problems) = error {
            errors.add(problems.map { FieldError(field: "form", message: $0.message) })
        } else {
            errors.add(field, error.pageMessage)
        }
        return try await page(visit, signedIn, errors: errors, status: 422)
    }

    private func page(_ visit: Visit, _ signedIn: SignedIn, errors: FormErrors, status: Int) async throws -> Response {
        try await SecurityPages.render(
            env, visit, signedIn, sections: ["totp": try await section(visit, signedIn)], errors: errors, status: status)
    }

    private func page(
        _ visit: Visit, _ signedIn: SignedIn, _ extra: [String: Any], errors: FormErrors, status: Int = 200
    ) async throws -> Response {
        var context: [String: Any] = ["supported": true, "impersonating": false, "hasPassword": try await hasPassword(signedIn)]
        context.merge(extra) { $1 }
        return try await SecurityPages.render(env, visit, signedIn, sections: ["totp": context], errors: errors, status: status)
    }

    /// What the enrolment shows: the QR code (SVG markup, no script, no image service), the URL
    /// and the key for typing in.
    private func enrolling(_ enrollment: TOTPEnrollment) -> [String: Any] {
        let qr = try? QRCodeSVG.svg(
            for: enrollment.provisioningURL, label: "QR code with your Gatehouse key for an authenticator app")
        return [
            "qr": qr ?? "", "url": enrollment.provisioningURL, "secret": enrollment.secret,
            "secretGroups": stride(from: 0, to: enrollment.secret.count, by: 4).map { start in
                String(enrollment.secret.dropFirst(start).prefix(4))
            }.joined(separator: " ")
        ]
    }

    /// Runs `body` for a signed-in person (`AuthenticatorApp` refuses an impersonation).
    private func signedIn(_ visit: Visit, _ body: (SignedIn) async throws -> Response) async throws -> Response {
        guard let signedIn = visit.signedIn else {
            return .redirect(to: URLQuery.path("/auth/sign-in", [("redirect", "/account/security")]))
        }
        return try await body(signedIn)
    }
}
