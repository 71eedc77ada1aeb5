import Foundation
import GRDB

/// A sign-in request an app's own backend follows by its ids (SuperTokens' passwordless "device"):
/// one address, the backend's current code request for it, and the wrong codes tried since.
public struct SignInDeviceRecord: Sendable, Equatable {
    public var deviceID: String
    public var preAuthSessionID: String
    public var email: String
    /// Whether the address had an account when the request was made.
    public var accountExisted: Bool
    /// The backend's id of the current code request (a resend replaces it).
    public var otpID: String
    public var codeID: String
    public var codeCreatedAt: Date
    public var codeLifetime: TimeInterval
    public var maximumAttempts: Int
    public var failedAttempts: Int

    public init(
        deviceID: String, preAuthSessionID: String, email: String, accountExisted: Bool, otpID: String, codeID: String,
        codeCreatedAt: Date, codeLifetime: TimeInterval, maximumAttempts: Int, failedAttempts: Int = 0
    ) {
        self.deviceID = deviceID
        self.preAuthSessionID = preAuthSessionID
        self.email = email
        self.accountExisted = accountExisted
        self.otpID = otpID
        self.codeID = codeID
        self.codeCreatedAt = codeCreatedAt
        self.codeLifetime = codeLifetime
        self.maximumAttempts = maximumAttempts
        self.failedAttempts = failedAttempts
    }

    init(row: Row) throws {
        self.init(
            deviceID: try row.string("device_id"), preAuthSessionID: try row.string("pre_auth_session_id"),
            email: try row.string("email"), accountExisted: try row.bool("account_existed"), otpID: try row.string("otp_id"),
            codeID: try row.string("code_id"), codeCreatedAt: try row.date("code_created_at"),
            codeLifetime: row["code_lifetime"] ?? 0, maximumAttempts: Int(try row.int64("maximum_attempts")),
            failedAttempts: Int(try row.int64("failed_attempts")))
    }
}
