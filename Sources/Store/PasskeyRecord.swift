import AuthCore
import Foundation
import GRDB

/// A row of `passkeys`: one WebAuthn credential of one account or superuser (`credential`, its
/// members read straight through the record), with when it was made and last used.
@dynamicMemberLookup
public struct PasskeyRecord: Sendable, Equatable {
    public var id: Int64
    public var credential: NewPasskey
    public var createdAt: Date
    public var lastUsedAt: Date?

    public subscript<Value>(dynamicMember member: KeyPath<NewPasskey, Value>) -> Value { credential[keyPath: member] }

    init(row: Row) {
        let transportsJSON: String = row["transports"]
        credential = NewPasskey(
            credentialID: [UInt8]((row["credential_id"] as Data?) ?? Data()),
            owner: (row["user_id"] as String?).map { .user(UserID(rawValue: $0)) } ?? .superuser(row["superuser_id"]),
            publicKey: [UInt8]((row["public_key"] as Data?) ?? Data()),
            signCount: UInt32(clamping: row["sign_count"] as Int64),
            transports: (try? JSONDecoder().decode([String].self, from: Data(transportsJSON.utf8))) ?? [],
            name: row["name"], backupEligible: row["backup_eligible"], backedUp: row["backed_up"])
        id = row["id"]
        createdAt = row.storedDate("created_at") ?? StoredDate.earliest
        lastUsedAt = row.storedDate("last_used_at")
    }
}

/// A passkey's facts: what registration stores, and what each sign-in reads and updates (its
/// counter and backup state, what the authenticator last said). Its owner names it.
public struct NewPasskey: Sendable, Equatable {
    public var credentialID: [UInt8]
    public var owner: PasskeyOwner
    /// The COSE_Key as the authenticator encoded it.
    public var publicKey: [UInt8]
    public var signCount: UInt32
    /// How the authenticator said it can be reached ("internal", "hybrid", "usb", …).
    public var transports: [String]
    public var name: String
    public var backupEligible: Bool
    public var backedUp: Bool

    public init(
        credentialID: [UInt8], owner: PasskeyOwner, publicKey: [UInt8], signCount: UInt32, transports: [String], name: String,
        backupEligible: Bool, backedUp: Bool
    ) {
        (self.credentialID, self.owner, self.publicKey, self.signCount) = (credentialID, owner, publicKey, signCount)
        (self.transports, self.name, self.backupEligible, self.backedUp) = (transports, name, backupEligible, backedUp)
    }
}

/// Whose a passkey is: a person's (their account's pages and APIs) or a superuser's (the console's
/// sign-in). Every lookup names one, so neither's credential ever signs in as the other.
public typealias PasskeyOwner = CredentialHolder
