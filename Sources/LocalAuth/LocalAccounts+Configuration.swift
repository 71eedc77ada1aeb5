import AuthCore
import Foundation
import PasswordStrength
import ServerSeam

extension LocalAccounts {
    /// Settings of the embedded backend; the defaults follow the security defaults in DESIGN.md.
    public struct Configuration: Sendable {
        /// How new accounts prove their email address.
        public var verification: VerificationMode
        /// Where the hosted pages are reached, e.g. `http://127.0.0.1:8080`; mailed links start with
        /// it. A closure because the address may be known only after the server has bound its port.
        public var publicBaseURL: @Sendable () -> String
        /// How long a mailed 6-digit code works.
        public var codeLifetime: TimeInterval
        /// How long a mailed verification link works.
        public var linkLifetime: TimeInterval
        /// Wrong codes after which a code is dead, even for the right digits.
        public var maxCodeAttempts: Int
        /// Minimum time between two verification mails to one address. The web layer enforces it
        /// per address whether or not an account exists (enforcing it here would only throttle
        /// known addresses and so reveal which exist); it lives here so both read one setting.
        public var resendCooldown: TimeInterval
        /// The one password rule (length and strength) every password a person chooses must meet.
        public var passwordRules: PasswordRules = .default
        /// Reserved test addresses (`--test-address-suffix`): code `424242`, nothing mailed.
        public var testAddresses: TestAddresses?

        public init(
            verification: VerificationMode = .code, publicBaseURL: @escaping @Sendable () -> String,
            codeLifetime: TimeInterval = 10 * 60, linkLifetime: TimeInterval = 24 * 60 * 60,
            maxCodeAttempts: Int = 5, resendCooldown: TimeInterval = 60
        ) {
            self.verification = verification
            self.publicBaseURL = publicBaseURL
            self.codeLifetime = codeLifetime
            self.linkLifetime = linkLifetime
            self.maxCodeAttempts = maxCodeAttempts
            self.resendCooldown = resendCooldown
        }

        /// The same settings with a fixed public address.
        public init(
            verification: VerificationMode = .code, publicBaseURL: String = "http://127.0.0.1:8080",
            codeLifetime: TimeInterval = 10 * 60, linkLifetime: TimeInterval = 24 * 60 * 60,
            maxCodeAttempts: Int = 5, resendCooldown: TimeInterval = 60
        ) {
            self.init(
                verification: verification, publicBaseURL: { publicBaseURL }, codeLifetime: codeLifetime,
                linkLifetime: linkLifetime, maxCodeAttempts: maxCodeAttempts, resendCooldown: resendCooldown)
        }

        /// The `/auth/verify-link` address carrying `token` (base64url, so safe in a query as is).
        func verificationLink(token: String) -> String {
            page("/auth/verify-link?token=\(token)")
        }

        /// An absolute address of one of the account pages, for mails.
        func page(_ pathAndQuery: String) -> String {
            var base = publicBaseURL()
            while base.hasSuffix("/") { base.removeLast() }
            return base + pathAndQuery
        }
    }
}
