import Foundation
import HTTPTestClient
import TestScope
import Testing

/// A clock per account (issue 47, README "Test controls"): moving one account's time ahead ends
/// what would have ended after that wait — in that account's time only — every way in.
@Suite(.stopsWhatItStarts) struct AccountClockTests {
    static let day: Double = 24 * 3600

    /// A server with two verified accounts, Ada and Bob, each signed in every way by one call.
    static func adaAndBobSignedInEveryWay() async throws -> (
        TestGatehouse, TestControlsScript, TestControlsScript.Held, TestControlsScript.Held
    ) {
        let gatehouse = try await TestGatehouse()
        let script = try await TestControlsScript(gatehouse)
        _ = try await script.account("ada@example.com")
        _ = try await script.account("bob@example.com")
        return (
            gatehouse, script, try await script.signInEveryWay("ada@example.com"),
            try await script.signInEveryWay("bob@example.com")
        )
    }

    /// Past every lifetime: the page session's 7 days, PocketBase's 5, InsForge's 7, Descope's 28,
    /// SuperTokens' 100: each way ends in its API's shape, and the other account keeps all of them.
    @Test func movingOneAccountsClockPastItsLifetimesEndsItsSessionsEveryWayAndNoOneElses() async throws {
        let (gatehouse, script, ada, bob) = try await Self.adaAndBobSignedInEveryWay()

        let moved = try await script.control("clock", ["email": "ada@example.com", "seconds": 101 * Self.day])
        #expect(moved.status == 200 && moved.json["offsetSeconds"] as? Double == 101 * Self.day, "\(moved.text)")

        let ended = try await script.refreshEveryWay(ada)
        #expect(ended.page.status == 303 && ended.page.header("Location")?.hasPrefix("/auth/sign-in") == true)
        #expect(ended.pocketBase.status == 401 && ended.pocketBase.json["status"] as? Int == 401, "\(ended.pocketBase.text)")
        #expect(ended.pocketBase.json["data"] is [String: Any])
        #expect(ended.insForge.status == 401 && ended.insForge.json["error"] as? String == "AUTH_UNAUTHORIZED")
        #expect(ended.insForge.json["statusCode"] as? Int == 401, "\(ended.insForge.text)")
        #expect(ended.descope.status == 401 && ended.descope.json["errorCode"] is String, "\(ended.descope.text)")
        #expect(ended.superTokensCore.json["status"] as? String == "UNAUTHORISED", "\(ended.superTokensCore.text)")

        let kept = try await script.refreshEveryWay(bob)
        #expect(kept.page.status == 200 && kept.page.text.contains("bob@example.com"))
        #expect(kept.pocketBase.status == 200 && kept.pocketBase.json["token"] is String, "\(kept.pocketBase.text)")
        #expect(kept.insForge.status == 200 && kept.insForge.json["accessToken"] is String, "\(kept.insForge.text)")
        #expect(kept.descope.status == 200 && kept.descope.json["sessionJwt"] is String, "\(kept.descope.text)")
        #expect(kept.superTokensCore.json["status"] as? String == "OK", "\(kept.superTokensCore.text)")
        await gatehouse.stop()
    }

    /// Short of the lifetimes, an hour's access tokens already end in the account's time (the
    /// token's own `exp`, checked without the database), and what Gatehouse signs for the account
    /// afterwards carries its clock in `iat`/`exp`.
    @Test func tokensAreCheckedAndSignedInTheAccountsTime() async throws {
        let (gatehouse, script, ada, bob) = try await Self.adaAndBobSignedInEveryWay()
        #expect(try await script.control("clock", ["email": "ada@example.com", "seconds": 7200]).status == 200)

        let adaCheck = try await script.superTokensVerify(ada.superTokensAccess)
        #expect(adaCheck.json["status"] as? String == "TRY_REFRESH_TOKEN", "\(adaCheck.text)")
        #expect(try await script.superTokensVerify(bob.superTokensAccess).json["status"] as? String == "OK")
        // Two hours in, the page session and every refresh still hold.
        let refreshed = try await script.refreshEveryWay(ada)
        #expect(refreshed.page.status == 200 && refreshed.pocketBase.status == 200 && refreshed.insForge.status == 200)

        let signedIn = try await script.control("sign-in", ["email": "ada@example.com", "way": "insforge"])
        let accessToken = try #require(signedIn.json["accessToken"] as? String)
        let claims = try #require(Self.claims(of: accessToken))
        let iat = try #require(claims["iat"] as? Double)
        let serverNow = gatehouse.clock.now.timeIntervalSince1970
        #expect(abs(iat - (serverNow + 7200)) < 60, "iat \(iat), server \(serverNow)")
        #expect(claims["exp"] as? Double == iat + 15 * 60)
        await gatehouse.stop()
    }

    /// `expire-now` ends one account's sessions at once, every way in; the other's stay.
    @Test func expireNowEndsOneAccountsSessionsAtOnce() async throws {
        let (gatehouse, script, ada, bob) = try await Self.adaAndBobSignedInEveryWay()
        let expired = try await script.control("clock/expire-now", ["userId": ada.userID, "kind": "sessions"])
        #expect(expired.status == 200 && (expired.json["ended"] as? Int ?? 0) >= 5, "\(expired.text)")
        let ended = try await script.refreshEveryWay(ada)
        #expect(ended.page.status == 303 && ended.pocketBase.status == 401 && ended.insForge.status == 401)
        #expect(ended.descope.status == 401 && ended.superTokensCore.json["status"] as? String == "UNAUTHORISED")
        let kept = try await script.refreshEveryWay(bob)
        #expect(kept.page.status == 200 && kept.pocketBase.status == 200 && kept.insForge.status == 200)
        #expect(kept.descope.status == 200 && kept.superTokensCore.json["status"] as? String == "OK")
        await gatehouse.stop()
    }

    /// A restart keeps the account's clock: sessions that ended in its time stay ended.
    @Test func aRestartKeepsTheAccountsClock() async throws {
        let gatehouse = try await TestGatehouse()
        let script = try await TestControlsScript(gatehouse)
        _ = try await script.account("ada@example.com")
        let ada = try await script.signInEveryWay("ada@example.com")
        #expect(try await script.control("clock", ["email": "ada@example.com", "seconds": 8 * Self.day]).status == 200)
        try await gatehouse.restart()
        let ended = try await script.refreshEveryWay(ada)
        #expect(ended.page.status == 303 && ended.pocketBase.status == 401 && ended.insForge.status == 401)
        // Descope's refresh JWT lives 28 days: eight days on, it still holds.
        #expect(ended.descope.status == 200, "\(ended.descope.text)")
        await gatehouse.stop()
    }

    /// Bad input answers in Gatehouse's JSON envelope and moves no clock; every move is audited.
    @Test func badInputIsRefusedAndEveryMoveIsAudited() async throws {
        let gatehouse = try await TestGatehouse()
        let script = try await TestControlsScript(gatehouse)
        let adaID = try await script.account("ada@example.com")
        for body: [String: Any] in [
            ["email": "ada@example.com", "seconds": -5], ["email": "ada@example.com", "seconds": 0],
            ["email": "ada@example.com", "seconds": 1e12], ["seconds": 60], ["email": "ada@example.com"]
        ] {
            let refused = try await script.control("clock", body)
            // A field the owner refuses answers 422 naming it; a body without `seconds` is unreadable (400).
            #expect([400, 422].contains(refused.status), "\(body): \(refused.text)")
            #expect(refused.json["status"] as? Int == refused.status, "\(body): \(refused.text)")
        }
        let nobody = try await script.control("clock", ["email": "nobody@example.com", "seconds": 60])
        #expect(nobody.status == 404 && nobody.json["error"] is String, "\(nobody.text)")
        let kind = try await script.control("clock/expire-now", ["userId": adaID, "kind": "everything"])
        #expect(kind.status == 400 && (kind.json["message"] as? String)?.contains("sessions") == true, "\(kind.text)")
        #expect(try await script.audit("test.clock_advanced").isEmpty)
        #expect(try await script.control("clock", ["userId": adaID, "seconds": 90]).json["offsetSeconds"] as? Double == 90)
        let rows = try await script.audit("test.clock_advanced")
        #expect(rows.count == 1 && rows.first?["subject"] as? String == adaID)
        #expect((rows.first?["data"] as? [String: Any])?["via"] as? String == "test-controls")
        await gatehouse.stop()
    }

    /// A mailed code lives ten minutes in its account's time: eleven minutes on for Ada, her
    /// verification code is refused as expired (InsForge's shape), while Bob's, mailed with hers, works.
    @Test func aMailedCodeEndsInItsAccountsTime() async throws {
        let gatehouse = try await TestGatehouse()
        let script = try await TestControlsScript(gatehouse)
        for email in ["ada@example.com", "bob@example.com"] {
            let signUp = try await script.call(
                "POST", "/api/auth/users?client_type=mobile", ["email": email, "password": "correct horse battery"])
            #expect(signUp.json["requireEmailVerification"] as? Bool == true, "\(signUp.text)")
        }
        let (adaCode, bobCode) = (
            try await gatehouse.latestCode(for: "ada@example.com"), try await gatehouse.latestCode(for: "bob@example.com")
        )
        #expect(try await script.control("clock", ["email": "ada@example.com", "seconds": 11 * 60]).status == 200)
        let ada = try await script.call(
            "POST", "/api/auth/email/verify?client_type=mobile", ["email": "ada@example.com", "otp": adaCode])
        #expect(ada.status == 400 && ada.json["statusCode"] as? Int == 400 && ada.json["accessToken"] == nil, "\(ada.text)")
        let bob = try await script.call(
            "POST", "/api/auth/email/verify?client_type=mobile", ["email": "bob@example.com", "otp": bobCode])
        #expect(bob.status == 200 && bob.json["accessToken"] is String, "\(bob.text)")
        // A code mailed after the move (past the server's minute between mails) lives its ten minutes in her time.
        gatehouse.clock.advance(61)
        #expect(try await script.call("POST", "/api/auth/email/send-verification", ["email": "ada@example.com"]).status == 202)
        let fresh = try await script.call(
            "POST", "/api/auth/email/verify?client_type=mobile",
            ["email": "ada@example.com", "otp": try await gatehouse.latestCode(for: "ada@example.com")])
        #expect(fresh.status == 200 && fresh.json["accessToken"] is String, "\(fresh.text)")
        await gatehouse.stop()
    }

    /// A JWT's payload.
    static func claims(of jwt: String) -> [String: Any]? {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }
}
