import Foundation
import Store

/// A passkey as its owner's list (the account's security page, the console's) shows it: its name,
/// when it was made and last used, whether it is synced, and how it is reached.
public struct PasskeySummary: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// Whether the authenticator syncs it (a backed-up, multi-device passkey).
    public var backedUp: Bool
    var backupEligible: Bool
    /// How the authenticator said it can be reached ("internal", "hybrid", "usb", …).
    public var transports: [String]

    init(_ row: PasskeyRecord) {
        id = row.id
        name = row.name
        createdAt = row.createdAt
        lastUsedAt = row.lastUsedAt
        backedUp = row.backedUp
        backupEligible = row.backupEligible
        transports = row.transports
    }
}
