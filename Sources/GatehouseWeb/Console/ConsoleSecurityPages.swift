import Accounts
import AuthCore
import Foundation
import HTTPServer
import TwoFactor

/// `/_/security`: a superuser's own two-step sign-in for the console — set up with the same inline
/// QR code as the account pages, turned off with the password.
struct ConsoleSecurityPages: Sendable {
    let env: PageEnvironment

    func register(on router: inout Router) {
        router.consolePage(.get, "/_/security", env) { visit, staff in
            try await render(visit, staff, enrolling: nil, errors: FormErrors())
        }
        router.consolePage(.post, "/_/security/totp/begin", env) { visit, staff in
            try await render(
                visit, staff, enrolling: try await env.staffSignIn.beginEnrollment(staff.superuser), errors: FormErrors())
        }
        router.consolePage(.post, "/_/security/totp/confirm", env) { visit, staff in
            let code = try visit.field("code").filter { !$0.isWhitespace }
            guard try await env.staffSignIn.confirmEnrollment(staff.superuser, code: code, request: visit.request) else {
                var errors = FormErrors()
                errors.add("code", "That code isn't right. Enter the current code your app shows for this key.")
                let secret = try await env.staffSignIn.beginEnrollment(staff.superuser)
                return try await render(visit, staff, enrolling: secret, errors: errors, status: 422)
            }
            return .redirect(to: "/_/security?notice=\(Notice.totpOn.rawValue)")
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

    private func render(
        _ visit: Visit, _ staff: Staff, enrolling: TOTPSecret?, errors: FormErrors, status: Int = 200
    ) async throws -> Response {
        var page: [String: Any] = ["enabled": try await env.staffSignIn.hasTOTP(staff.superuser)]
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
                title: "Two-step sign-in", staff: staff, nav: .users, backendName: env.configuration.backendDescription,
                page.merging(errors.context) { $1 }), status: status)
    }
}
