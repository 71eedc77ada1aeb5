import Foundation
import Secrets

/// Passwordless "devices" as the core names them: one sign-in request to one address, found by
/// its `deviceId` (the app's frontend keeps it) or its `preAuthSessionId` (in the magic link).
/// The code and link themselves are the backend's (their lifetimes, tries and spending); this
/// keeps only which request a device is at now — a resend moves it to a new one — and its wrong
/// tries, in memory: after a restart the SDK is told to start again (`RESTART_FLOW_ERROR`).
actor SuperTokensDevices {
    /// How many devices are kept at most; the oldest go first.
    static let capacity = 10_000

    struct Device: Sendable {
        let deviceID: String
        let preAuthSessionID: String
        let email: String
        /// Whether the address had an account when the device was made (`createdNewUser`).
        let accountExisted: Bool
        /// The device's current code (a resend replaces it).
        var code: Code
        var failedAttempts = 0
    }

    /// A code the backend issued for a device, with the backend's rules for it.
    struct Code: Sendable {
        /// The backend's id of the code's request.
        var otpID: String
        var codeID: String
        var createdAt: Date
        /// How long it works, and how many wrong tries end it.
        var lifetime: TimeInterval
        var maximumAttempts: Int
    }

    private var devices: [String: Device] = [:]
    private var byPreAuthSession: [String: String] = [:]
    private var order: [String] = []

    /// Keeps `device`, dropping the oldest beyond `capacity`.
    func add(_ device: Device) {
        devices[device.deviceID] = device
        byPreAuthSession[device.preAuthSessionID] = device.deviceID
        order.append(device.deviceID)
        while order.count > Self.capacity {
            let dropped = order.removeFirst()
            if let gone = devices.removeValue(forKey: dropped) { byPreAuthSession[gone.preAuthSessionID] = nil }
        }
    }

    func device(id: String) -> Device? { devices[id] }

    func device(preAuthSessionID: String) -> Device? { byPreAuthSession[preAuthSessionID].flatMap { devices[$0] } }

    /// The device after a resend: its new code, its tries counted afresh.
    func moved(_ id: String, to code: Code) -> Device? {
        guard var device = devices[id] else { return nil }
        device.code = code
        device.failedAttempts = 0
        devices[id] = device
        return device
    }

    /// Counts a wrong code; the count so far.
    func failed(_ id: String) -> Int {
        devices[id]?.failedAttempts += 1
        return devices[id]?.failedAttempts ?? 0
    }

    /// Forgets a device whose code or link was spent.
    func remove(_ id: String) {
        guard let gone = devices.removeValue(forKey: id) else { return }
        byPreAuthSession[gone.preAuthSessionID] = nil
        order.removeAll { $0 == id }
    }
}
