import Foundation
import Store

/// An account's authenticator-app device as an app's backend names and counts it
/// (`AppAuthenticatorDevices`): its name, whether it is still being enrolled, its wrong codes.
struct AppAuthenticatorDevice: Sendable, Equatable {
    public var name: String?
    /// When a key was handed out for enrolment; nil once the authenticator is on.
    var pendingSince: Date?
    var failedAttempts: Int

    init(_ row: AppAuthenticatorDeviceRecord) {
        (name, pendingSince, failedAttempts) = (row.name, row.pendingSince, row.failedAttempts)
    }
}
