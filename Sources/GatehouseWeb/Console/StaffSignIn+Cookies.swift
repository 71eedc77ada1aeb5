import Accounts
import HTTPServer

/// The console's cookie holding a superuser's pending second step (`StaffSignIn.pendingStep`):
/// it lives as long as the step and only under `/_/`.
extension StaffSignIn {
    static let secondStepCookie = "gh_console_mfa"

    /// The console's cookie holding a pending step.
    func secondStepCookie(pending: String, secure: Bool) -> Cookie {
        Cookie(
            name: Self.secondStepCookie, value: pending, path: "/_/", maxAge: Int(Self.secondStepLifetime), httpOnly: true,
            secure: secure, sameSite: .strict)
    }

    func clearedSecondStepCookie(secure: Bool) -> Cookie {
        Cookie(name: Self.secondStepCookie, value: "", path: "/_/", maxAge: 0, httpOnly: true, secure: secure, sameSite: .strict)
    }
}
