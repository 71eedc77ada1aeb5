import AuthCore
import Foundation
import GRDB

/// A row of `passkeys`: one WebAuthn credential of one account, with what the authenticator last
/// told about it (its counter, whether it is backed up) and the name its owner gave it.
public struct PasskeyRecord: Sendable, Equatable {
    public var id: Int64
    public var credentialID: [UInt8]
    public var userID: UserID
    /// The COSE_Key as the authenticator encoded it.
    public var publicKey: [UInt8]
    public var signCount: UInt32
    public var transports: [String]
    public var name: String
    public var backupEligible: Bool
    public var backedUp: Bool
    public var createdAt: Date
    public var lastUsedAt: Date?

    init(row: Row) {
        id = row["id"]
        credentialID = [UInt8]((row["credential_id"] as Data?) ?? Data())
        userID = UserID(rawValue: row["user_id"])
        publicKey = [UInt8]((row["public_key"] as Data?) ?? Data())
        signCount = UInt32(clamping: row["sign_count"] as Int64)
        let transportsJSON: String = row["transports"]
        transports = (try? JSONDecoder().decode([String].self, from: Data(transportsJSON.utf8))) ?? []
        name = row["name"]
        backupEligible = row["backup_eligible"]
        backedUp = row["backed_up"]
        createdAt = row.storedDate("created_at") ?? StoredDate.earliest
        lastUsedAt = row.storedDate("last_used_at")
    }
}

/// A credential to store after its registration checked out.
public struct NewPasskey: Sendable {
    public var credentialID: [UInt8]
    public var userID: UserID
    public var publicKey: [UInt8]
    public var signCount: UInt32
    public var transports: [String]
    public var name: String
    public var backupEligible: Bool
    public var backedUp: Bool

    public init(
        credentialID: [UInt8], userID: UserID, publicKey: [UInt8], signCount: UInt32, transports: [String], name: String,
        backupEligible: Bool, backedUp: Bool
    ) {
        self.credentialID = credentialID
        self.userID = userID
        self.publicKey = publicKey
        self.signCount = signCount
        self.transports = transports
        self.name = name
        self.backupEligible = backupEligible
        self.backedUp = backedUp
    }
}
