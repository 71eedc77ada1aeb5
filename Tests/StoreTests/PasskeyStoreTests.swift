import AuthCore
import Foundation
import Testing

@testable import Store

/// The passkey tables: a credential id is one account's; a counter moves only from the value the
/// check read; a challenge is spent once and dies after its time; deleting an account takes its
/// passkeys with it.
@Suite struct PasskeyStoreTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func account(_ store: TestDatabase, _ id: String, password: Bool = true) async throws -> UserID {
        let record = UserRecord(
            id: UserID(id), email: "\(id)@example.com", passwordHash: password ? "x" : nil, verified: true, profile: Profile([:]),
            createdAt: now, updatedAt: now)
        _ = try await store.database.insertUser(record, verificationToken: nil)
        return UserID(id)
    }

    private func passkey(_ user: UserID, id: [UInt8] = [1, 2, 3]) -> NewPasskey {
        NewPasskey(
            credentialID: id, owner: .user(user), publicKey: [0xA5, 1, 2], signCount: 4, transports: ["internal"], name: "Laptop",
            backupEligible: true, backedUp: false)
    }

    @Test func aCredentialIDIsStoredOnceAndReadBack() async throws {
        let store = try TestDatabase()
        let ann = try await account(store, "ann")
        let bob = try await account(store, "bob")
        let stored = try #require(try await store.database.addPasskey(passkey(ann), at: now))
        #expect(stored.transports == ["internal"] && stored.signCount == 4 && stored.lastUsedAt == nil)
        #expect(try await store.database.addPasskey(passkey(bob), at: now) == nil)
        #expect(try await store.database.passkey(credentialID: [1, 2, 3])?.owner == .user(ann))
        #expect(try await store.database.passkeys(of: bob).isEmpty)
    }

    @Test func theCounterMovesOnlyFromWhatWasRead() async throws {
        let store = try TestDatabase()
        let stored = try #require(try await store.database.addPasskey(passkey(try await account(store, "ann")), at: now))
        #expect(
            try await store.database.recordPasskeyUse(id: stored.id, expectedSignCount: 4, signCount: 5, backedUp: true, at: now))
        #expect(
            !(try await store.database.recordPasskeyUse(
                id: stored.id, expectedSignCount: 4, signCount: 6, backedUp: true, at: now)))
        let used = try #require(try await store.database.passkey(credentialID: [1, 2, 3]))
        #expect(used.signCount == 5 && used.backedUp && used.lastUsedAt == now)
    }

    @Test func renameAndDeleteReachOnlyTheOwnersPasskeys() async throws {
        let store = try TestDatabase()
        let ann = try await account(store, "ann")
        let bob = try await account(store, "bob")
        let stored = try #require(try await store.database.addPasskey(passkey(ann), at: now))
        #expect(!(try await store.database.renamePasskey(id: stored.id, of: bob, to: "Mine")))
        #expect(try await store.database.deletePasskey(id: stored.id, of: .user(bob)) == nil)
        #expect(try await store.database.renamePasskey(id: stored.id, of: ann, to: "Phone"))
        #expect(try await store.database.deletePasskey(id: stored.id, of: .user(ann))?.name == "Phone")
        #expect(try await store.database.passkeys(of: ann).isEmpty)
    }

    @Test func aChallengeIsSpentOnceAndNotAfterItExpires() async throws {
        let store = try TestDatabase()
        let ann = try await account(store, "ann")
        let hash = String(repeating: "a", count: 64)
        let later = now.addingTimeInterval(360)
        try await store.database.storePasskeyChallenge(
            hash: hash, purpose: .authenticate, userID: ann, expiresAt: later, now: now)
        #expect(try await store.database.spendPasskeyChallenge(hash: hash, purpose: .register, now: { _ in now }) == .unknown)
        #expect(
            try await store.database.spendPasskeyChallenge(hash: hash, purpose: .authenticate, now: { _ in now }) == .spent(ann))
        #expect(try await store.database.spendPasskeyChallenge(hash: hash, purpose: .authenticate, now: { _ in now }) == .unknown)
        // Asked in the time of the account it was issued for: ann's clock is past it, the server's is not.
        try await store.database.storePasskeyChallenge(
            hash: hash, purpose: .authenticate, userID: ann, expiresAt: later, now: now)
        let annsTime: @Sendable (UserID?) -> Date = { $0 == ann ? later : now }
        #expect(try await store.database.spendPasskeyChallenge(hash: hash, purpose: .authenticate, now: annsTime) == .expired)
        try await store.database.storePasskeyChallenge(
            hash: hash, purpose: .authenticate, userID: nil, expiresAt: later, now: now)
        #expect(
            try await store.database.spendPasskeyChallenge(hash: hash, purpose: .authenticate, now: { _ in later }) == .expired)
    }

    @Test func theLastWayToSignInIsNotDeletedByItsOwner() async throws {
        let store = try TestDatabase()
        let ann = try await account(store, "ann", password: false)
        let first = try #require(try await store.database.addPasskey(passkey(ann), at: now))
        let second = try #require(try await store.database.addPasskey(passkey(ann, id: [4, 5]), at: now))
        #expect(try await store.database.deleteOwnPasskey(id: second.id, of: UserID("bob")) == .notFound)
        #expect(try await store.database.deleteOwnPasskey(id: second.id, of: ann) == .deleted(second))
        #expect(try await store.database.deleteOwnPasskey(id: first.id, of: ann) == .lastSignInMethod)
        #expect(try await store.database.passkeys(of: ann) == [first])
        // A linked provider is another way in; so is a password (Bea's).
        _ = try await store.database.linkExternal(
            ExternalIdentity(provider: "github", subject: "gh-ann", email: nil, emailVerified: false), to: ann, at: now)
        #expect(try await store.database.deleteOwnPasskey(id: first.id, of: ann) == .deleted(first))
        let bea = try await account(store, "bea")
        let hers = try #require(try await store.database.addPasskey(passkey(bea, id: [9]), at: now))
        #expect(try await store.database.deleteOwnPasskey(id: hers.id, of: bea) == .deleted(hers))
    }

    @Test func aSuperusersPasskeyIsFoundOnlyAmongSuperusers() async throws {
        let store = try TestDatabase()
        let ann = try await account(store, "ann")
        let staff = try await store.database.createSuperuser(id: "staff1", email: "staff@example.com", passwordHash: "x", at: now)
        var theirs = passkey(ann, id: [7, 7])
        theirs.owner = .superuser(staff.id)
        let stored = try #require(try await store.database.addPasskey(theirs, at: now))
        #expect(stored.owner == .superuser(staff.id))
        #expect(try await store.database.passkey(credentialID: [7, 7]) == nil)
        #expect(try await store.database.passkey(credentialID: [7, 7], superusers: true) == stored)
        #expect(try await store.database.passkeys(of: ann).isEmpty)
        #expect(try await store.database.passkeys(of: .superuser(staff.id)) == [stored])
        // A person's passkey is not found among superusers', and neither deletes the other's.
        let hers = try #require(try await store.database.addPasskey(passkey(ann), at: now))
        #expect(try await store.database.passkey(credentialID: [1, 2, 3], superusers: true) == nil)
        #expect(try await store.database.deletePasskey(id: hers.id, of: .superuser(staff.id)) == nil)
        #expect(try await store.database.deletePasskey(id: stored.id, of: .user(ann)) == nil)
        #expect(try await store.database.deletePasskey(id: stored.id, of: .superuser(staff.id)) == stored)
    }

    @Test func deletingTheAccountDeletesItsPasskeys() async throws {
        let store = try TestDatabase()
        let ann = try await account(store, "ann")
        _ = try await store.database.addPasskey(passkey(ann), at: now)
        try await store.database.deleteUser(id: ann, at: now)
        #expect(try await store.database.passkey(credentialID: [1, 2, 3]) == nil)
    }
}
