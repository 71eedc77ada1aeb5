import Accounts
import AuthCore
import Foundation
import HTTPServer
import TwoFactor

/// `/_/security`: a superuser's own two-step sign-in for the console, on the people's rules — set
/// up with the same inline QR code as the account pages (the key shown expires like theirs), the
/// ten recovery codes shown once when it is turned on, new codes and turning it off after the
/// password again — and their console passkeys (`ConsolePasskeyPages`). Adding either way in needs
/// a recent console sign-in (`StaffRecentSignIn`): past it the page asks for the password in place.
struct ConsoleSecurityPages: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.consolePage(.get, "/_/security", env) { visit, staff in
            try await render(visit, staff, enrolling: nil, errors: FormErrors())
        }
        router.consolePage(.post, "/_/security/confirm", env, confirm)
        router.consolePage(.post, "/_/security/totp/begin", env) { visit, staff in
            do {
                return try await render(
                    visit, staff, enrolling: try await env.staffSignIn.beginEnrollment(staff), errors: FormErrors())
            } catch let refusal as FreshSignInRequired {
                return try await confirmFirst(visit, staff, refusal)
            }
        }
        router.consolePage(.post, "/_/security/totp/confirm", env) { visit, staff in
            let code = try visit.field("code").filter { !$0.isWhitespace }
            do {
                guard let codes = try await env.staffSignIn.confirmEnrollment(staff, code: code, request: visit.request)
                else {
                    var errors = FormErrors()
                    errors.add(
                        "code", "That code isn't right, or the key expired. Enter the current code your app shows for this key.")
                    let secret = try await env.staffSignIn.beginEnrollment(staff)
                    return try await render(visit, staff, enrolling: secret, errors: errors, status: 422)
                }
                return try await render(visit, staff, enrolling: nil, newCodes: codes, errors: FormErrors())
            } catch let refusal as FreshSignInRequired {
                return try await confirmFirst(visit, staff, refusal)
            }
        }
        router.consolePage(.post, "/_/security/totp/recovery-codes", env) { visit, staff in
            guard
                let codes = try await env.staffSignIn.regenerateRecoveryCodes(
                    staff.superuser, password: try visit.field("password"), request: visit.request)
            else {
                var errors = FormErrors()
                errors.add("codes_password", "That password isn't right.")
                return try await render(visit, staff, enrolling: nil, errors: errors, status: 422)
            }
            return try await render(visit, staff, enrolling: nil, newCodes: codes, errors: FormErrors())
        }
        router.consolePage(.post, "/_/security/totp/disable", env) { visit, staff in
            guard
                try await env.staffSignIn.disableTOTP(
                    staff.superuser, password: try visit.field("password"), request: visit.request)
            else {
                var errors = FormErrors()
                errors.add("password", "That password isn't right.")
                return try await render(visit, staff, enrolling: nil, errors: errors, status: 422)
            }
            return .redirect(to: "/_/security?notice=\(Notice.totpOff.rawValue)")
        }
    }

    /// `POST /_/security/confirm`: the password again renews the session (a new cookie) and opens
    /// the window to add a way in; a wrong one is shown on the page, a session ended meanwhile
    /// goes to the sign-in.
    private func confirm(_ visit: Visit, _ staff: Staff) async throws -> Response {
        let password = try visit.field("password")
        var errors = FormErrors()
        switch try await StaffRecentSignIn(env: env.accounts).confirm(staff, password: password, request: visit.request) {
        case .confirmed(let token):
            var response = Response.redirect(to: "/_/security?notice=\(Notice.consoleConfirmed.rawValue)")
            response.setCookie(env.console.cookie(token: token))
            return response
        case .signedOut:
            return .redirect(to: "/_/?redirect=%2F_%2Fsecurity")
        case .refused(.wrong):
            errors.add("confirm_password", "That password isn't right.")
            return try await render(visit, staff, enrolling: nil, errors: errors, status: 422)
        case .refused(.throttled), .refused(.locked):
            errors.add("confirm_password", "Too many wrong passwords. Wait a few minutes, then try again.")
            return try await render(visit, staff, enrolling: nil, errors: errors, status: 429)
        }
    }

    /// An add asked for past the window (the page was opened before it closed): the page again,
    /// now asking for the password, with why.
    private func confirmFirst(_ visit: Visit, _ staff: Staff, _ refusal: FreshSignInRequired) async throws -> Response {
        var errors = FormErrors()
        errors.add("confirm_password", refusal.message)
        return try await render(visit, staff, enrolling: nil, errors: errors, status: refusal.status)
    }

    private func render(
        _ visit: Visit, _ staff: Staff, enrolling: TOTPSecret?, newCodes: [String] = [], errors: FormErrors,
        status: Int = 200
    ) async throws -> Response {
        let totp = try await env.staffSignIn.totpStatus(staff.superuser)
        var page: [String: Any] = [
            "confirmFirst": StaffRecentSignIn.isStale(staff, now: env.accounts.clock()),
            "confirmMinutes": Int(RecentSignIn.window / 60),
            "enabled": totp.enabled,
            "recoveryCodesLeft": totp.recoveryCodesLeft,
            "passkeys": try await ConsolePasskeyPages(env: env).section(staff)
        ]
        page.merge(RecoveryCodesFile.context(newCodes, for: "the console (\(staff.superuser.email))")) { $1 }
        if let enrolling {
            let url = enrolling.provisioningURL(issuer: "Gatehouse console", account: staff.superuser.email)
            page["enrolling"] = [
                "qr": (try? QRCodeSVG.svg(for: url, label: "QR code with your console key for an authenticator app")) ?? "",
                "url": url, "secret": enrolling.base32
            ]
        }
        return env.renderer.page(
            .consoleSecurity,
            visit.consoleContext(
                title: "Two-step sign-in", staff: staff, nav: .ownSecurity, backendName: env.configuration.backendDescription,
                page.merging(errors.context) { $1 }), status: status)
    }
}
