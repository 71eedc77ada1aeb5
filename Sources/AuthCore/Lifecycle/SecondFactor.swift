import Foundation

/// A sign-in that passed its first step (password, email code, magic link or provider) on an
/// account that asks for a second one. `id` names the pending sign-in on the backend (the embedded
/// store's challenge, PocketBase's `mfaId`); it lives a few minutes and allows a few tries.
public struct MFAChallenge: Sendable, Hashable, Codable {
    public var id: String
    /// The second steps this account can take, in the order pages offer them.
    public var methods: [SecondFactor.Method]
    public var expiresAt: Date?

    public init(id: String, methods: [SecondFactor.Method], expiresAt: Date?) {
        self.id = id
        self.methods = methods
        self.expiresAt = expiresAt
    }
}

/// What completes an `MFAChallenge`.
public enum SecondFactor: Sendable, Hashable {
    /// A 6-digit code from the person's authenticator app (RFC 6238).
    case totp(code: String)
    /// One of the single-use recovery codes shown when TOTP was turned on.
    case recoveryCode(String)
    /// A code mailed by `requestEmailOTP` (PocketBase's second method).
    case emailOTP(otpID: String, code: String)

    public enum Method: String, Sendable, Hashable, Codable {
        case totp
        case recoveryCode = "recovery_code"
        case emailOTP = "email_otp"
    }
}

/// Whether an account has TOTP on, and how many recovery codes it has left.
public struct TOTPStatus: Sendable, Hashable, Codable {
    public var enabled: Bool
    public var recoveryCodesLeft: Int

    public init(enabled: Bool, recoveryCodesLeft: Int) {
        self.enabled = enabled
        self.recoveryCodesLeft = recoveryCodesLeft
    }
}

/// A TOTP key waiting to be confirmed with a first code: its base32 text for manual entry and the
/// `otpauth://` URL an authenticator app reads from the QR code.
public struct TOTPEnrollment: Sendable, Hashable {
    public var secret: String
    public var provisioningURL: String

    public init(secret: String, provisioningURL: String) {
        self.secret = secret
        self.provisioningURL = provisioningURL
    }
}
