import Foundation
import Store

/// One sign-in request an app's backend follows by its ids (`AppSignInDevices`): the address, the
/// backend's code request it is at now, and its tries.
public struct AppSignInDevice: Sendable, Equatable {
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

    init(_ row: SignInDeviceRecord) {
        deviceID = row.deviceID
        preAuthSessionID = row.preAuthSessionID
        email = row.email
        accountExisted = row.accountExisted
        otpID = row.otpID
        codeID = row.codeID
        codeCreatedAt = row.codeCreatedAt
        codeLifetime = row.codeLifetime
        maximumAttempts = row.maximumAttempts
        failedAttempts = row.failedAttempts
    }
}
