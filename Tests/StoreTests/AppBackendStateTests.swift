import AuthCore
import Foundation
import GRDB
import Testing

@testable import Store

/// What an app's own backend keeps between its calls (migration `s17-app-backend-state`): read
/// back from the file as written, changed in part, swept when stale, gone with what owns it.
@Suite struct AppBackendStateTests {
    let test: TestDatabase
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws { test = try TestDatabase() }

    func device(_ id: String, email: String = "a@example.com", at created: Date) -> SignInDeviceRecord {
        SignInDeviceRecord(
            deviceID: id, preAuthSessionID: "pre-" + id, email: email, accountExisted: false, otpID: "otp-" + id,
            codeID: "code-" + id, codeCreatedAt: created, codeLifetime: 600, maximumAttempts: 5)
    }

    @Test func aDeviceIsReadBackMovedCountedAndSweptADayAfterItsCodeEnds() async throws {
        let database = test.database
        try await database.insertSignInDevice(device("d1", at: now), now: now)
        #expect(try await database.signInDevice(id: "d1") == device("d1", at: now))
        #expect(try await database.signInDevice(preAuthSessionID: "pre-d1")?.deviceID == "d1")
        #expect(try await database.signInDevices(email: " A@Example.com ").map(\.deviceID) == ["d1"])
        #expect(try await database.countSignInDeviceFailure(id: "d1") == 1)
        #expect(try await database.countSignInDeviceFailure(id: "d1") == 2)
        let moved = try await database.moveSignInDevice(
            id: "d1", otpID: "otp-2", codeID: "code-2", createdAt: now.addingTimeInterval(60), lifetime: 600, maximumAttempts: 5)
        #expect(moved?.otpID == "otp-2" && moved?.failedAttempts == 0)
        #expect(try await database.signInDevice(id: "d1") == moved)

        // A new device after the first's code has been dead for a day sweeps the first away.
        let later = now.addingTimeInterval(60 + 600 + AppDatabase.signInDeviceRetention + 1)
        try await database.insertSignInDevice(device("d2", at: later), now: later)
        #expect(try await database.signInDevice(id: "d1") == nil)
        #expect(try await database.countSignInDeviceFailure(id: "d1") == 0)
        try await database.deleteSignInDevice(id: "d2")
        #expect(try await database.signInDevice(id: "d2") == nil)
    }

    @Test func anAuthenticatorEntryKeepsItsNameAndCountUntilForgotten() async throws {
        let database = test.database
        #expect(try await database.appAuthenticatorDevice(userID: "u1") == AppAuthenticatorDeviceRecord())
        try await database.updateAppAuthenticatorDevice(userID: "u1") {
            ($0.name, $0.pendingSince) = ("Phone", Date(timeIntervalSince1970: 1_800_000_000))
        }
        let counted = try await database.updateAppAuthenticatorDevice(userID: "u1") { $0.failedAttempts += 1 }
        #expect(counted == AppAuthenticatorDeviceRecord(name: "Phone", pendingSince: now, failedAttempts: 1))
        #expect(try await database.appAuthenticatorDevice(userID: "u1") == counted)
        try await database.deleteAppAuthenticatorDevice(userID: "u1")
        #expect(try await database.appAuthenticatorDevice(userID: "u1") == AppAuthenticatorDeviceRecord())
    }

    @Test func sessionDataChangesInPartsAndGoesWithItsSession() async throws {
        let database = test.database
        let session = try await database.createSession(
            NewSession(
                tokenHash: "t", userID: UserID("alice0000000000"), userAgent: "UA", ip: "127.0.0.1", createdAt: now,
                expiresAt: now.addingTimeInterval(3600)))
        #expect(try await database.appSessionData(sessionID: session.id) == nil)
        try await database.setAppSessionData(sessionID: session.id, inJWT: ["role": "reader"], inDatabase: ["cart": .number(1)])
        try await database.setAppSessionData(sessionID: session.id, inJWT: nil, inDatabase: ["cart": .number(2)])
        #expect(
            try await database.appSessionData(sessionID: session.id)
                == AppSessionData(inJWT: ["role": "reader"], inDatabase: ["cart": .number(2)]))
        try await database.setAppSessionData(sessionID: session.id, inJWT: ["role": "editor"], inDatabase: nil)
        #expect(
            try await database.appSessionData(sessionID: session.id)
                == AppSessionData(inJWT: ["role": "editor"], inDatabase: ["cart": .number(2)]))

        try await database.pool.write { db in try db.execute(sql: "DELETE FROM sessions WHERE id = ?", arguments: [session.id]) }
        #expect(try await database.appSessionData(sessionID: session.id) == nil)
    }
}
