import AuthCore
import Foundation
import GRDB
import HTTPTestClient
import TestScope
import Testing
import TwoFactor

/// Issue 23, item 5: superusers' two-step sign-in on the people's rules (`TOTPRules`) — the key
/// shown for enrolment expires, wrong second steps are capped per superuser per hour across fresh
/// sign-ins, and ten single-use recovery codes (kept as keyed hashes) work at every way in.
@Suite(.stopsWhatItStarts) struct SuperuserTOTPRuleTests {
    static let email = "root@example.com"
    static let password = "staff-password-1"

    /// A superuser signed in to the console with TOTP turned on: the browser, the key and the
    /// recovery codes shown once. The clock is past the step that turned it on.
    static func superuserWithTOTP(_ gatehouse: TestGatehouse) async throws -> (Browser, [UInt8], [String]) {
        let staff = try await gatehouse.staffBrowser(email: email, password: password)
        let secret = try TOTPPageTests.secret(in: try await staff.post("/_/security/totp/begin", []).text)
        let on = try await staff.post(
            "/_/security/totp/confirm", [("code", try TOTP.code(secret: secret, at: gatehouse.clock.now))])
        #expect(on.status == 200 && on.text.contains("data-recovery-codes"), "\(on.status)")
        let codes = TOTPPageTests.recoveryCodes(in: on.text)
        #expect(codes.count == TOTPRules.recoveryCodeCount && Set(codes).count == codes.count)
        gatehouse.clock.advance(30)
        return (staff, secret, codes)
    }

    /// A fresh console sign-in with the password: the browser at its second step.
    static func atSecondStep(_ gatehouse: TestGatehouse) async throws -> Browser {
        let browser = gatehouse.browser()
        _ = try await browser.get("/_/")
        let first = try await browser.post("/_/", [("email", email), ("password", password)])
        #expect(first.status == 200 && first.text.contains("data-console-second-step"))
        return browser
    }

    static func apiAuth(_ gatehouse: TestGatehouse, code: String) async throws -> Int {
        try await gatehouse.script.call(
            "POST", "/_/api/auth", ["email": email, "password": password, "code": code]
        ).status
    }

    @Test func theKeyShownForEnrolmentExpiresAndAFreshOneIsShown() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let staff = try await gatehouse.staffBrowser(email: Self.email, password: Self.password)
        let first = try TOTPPageTests.secret(in: try await staff.post("/_/security/totp/begin", []).text)
        #expect(
            try TOTPPageTests.secret(in: try await staff.post("/_/security/totp/begin", []).text) == first, "a reload keeps it")

        gatehouse.clock.advance(TOTPRules.pendingEnrollmentLifetime + 1)
        // By then the console sign-in is no longer recent either (`RecentSignIn.window`): the password again.
        _ = try await staff.get("/_/security")
        #expect(try await staff.post("/_/security/confirm", [("password", Self.password)]).status == 303)
        // The old key no longer turns TOTP on, even with its right code; a fresh key is shown instead.
        let late = try await staff.post(
            "/_/security/totp/confirm", [("code", try TOTP.code(secret: first, at: gatehouse.clock.now))])
        #expect(late.status == 422)
        let fresh = try TOTPPageTests.secret(in: late.text)
        #expect(fresh != first)
        #expect(try await staff.get("/_/security").text.contains(#"data-totp-status="off""#))
        let on = try await staff.post(
            "/_/security/totp/confirm", [("code", try TOTP.code(secret: fresh, at: gatehouse.clock.now))])
        #expect(on.status == 200 && on.text.contains("data-recovery-codes"))
        await gatehouse.stop()
    }

    @Test func wrongSecondStepsAreCappedPerSuperuserPerHourAcrossFreshSignIns() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (_, secret, _) = try await Self.superuserWithTOTP(gatehouse)
        let right = { try TOTP.code(secret: secret, at: gatehouse.clock.now) }
        let wrong = { try right() == "000000" ? "111111" : "000000" }
        // Fresh sign-ins each bring their five tries, but not past ten wrong ones in the hour.
        for _ in 0..<(TOTPRules.wrongStepsPerAccount / TOTPRules.triesPerStep) {
            let browser = try await Self.atSecondStep(gatehouse)
            for _ in 0..<TOTPRules.triesPerStep {
                #expect(try await browser.post("/_/second-step", [("code", wrong())]).status == 422)
            }
        }
        // The 11th try is refused even with the right code: through the form, PocketBase and the API.
        let browser = try await Self.atSecondStep(gatehouse)
        let refused = try await browser.post("/_/second-step", [("code", right())])
        #expect(refused.status == 422, "the right code after ten wrong ones in the hour")
        #expect(try await browser.get("/_/users", follow: false).status == 303, "not signed in")
        gatehouse.clock.advance(30)  // a code not spent yet, so only the ceiling can refuse it
        let attempt = try await gatehouse.script.call(
            "POST", "/api/collections/_superusers/auth-with-password", ["identity": Self.email, "password": Self.password])
        let mfaID = try #require(attempt.json["mfaId"] as? String)
        let viaPocketBase = try await gatehouse.script.call(
            "POST", "/api/collections/_superusers/auth-with-otp", ["otpId": mfaID, "mfaId": mfaID, "password": right()])
        #expect(viaPocketBase.status == 400 && viaPocketBase.json["token"] == nil)
        gatehouse.clock.advance(30)
        #expect(try await Self.apiAuth(gatehouse, code: right()) == 401)

        // An hour later the right code signs in again, and right codes do not eat the budget.
        gatehouse.clock.advance(TOTPRules.failureWindow + 1)
        for _ in 0..<(TOTPRules.wrongStepsPerAccount + 1) {
            let later = try await Self.atSecondStep(gatehouse)
            #expect(try await later.post("/_/second-step", [("code", right())]).status == 303)
            gatehouse.clock.advance(30)
        }
        await gatehouse.stop()
    }

    @Test func aRecoveryCodeSignsInOnceThroughTheConsoleForm() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (staff, _, codes) = try await Self.superuserWithTOTP(gatehouse)
        #expect(try await staff.get("/_/security").text.contains(#"data-recovery-codes-left="10""#))

        let browser = try await Self.atSecondStep(gatehouse)
        let done = try await browser.post("/_/second-step", [("recovery_code", codes[0].uppercased())])
        #expect(done.status == 303 && done.header("Location") == "/_/users", "\(done.status)")
        #expect(try await browser.get("/_/users", follow: false).status == 200)

        let again = try await Self.atSecondStep(gatehouse)
        let replay = try await again.post("/_/second-step", [("recovery_code", codes[0])])
        #expect(replay.status == 422 && replay.text.contains("recovery_code-error"))
        #expect(try await again.get("/_/users", follow: false).status == 303, "a spent code signs nobody in")
        #expect(try await staff.get("/_/security").text.contains(#"data-recovery-codes-left="9""#))

        let signIns = try await gatehouse.database.auditEvents(subject: nil, limit: 200).filter {
            $0.type == "console.sign_in.completed"
        }
        #expect(signIns.contains { $0.data["secondStep"] == .string("recovery_code") })
        await gatehouse.stop()
    }

    @Test func aRecoveryCodeSignsInOnceThroughPocketBaseAndTheAdminAPI() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (_, _, codes) = try await Self.superuserWithTOTP(gatehouse)

        func viaPocketBase(_ code: String) async throws -> TestResponse {
            let attempt = try await gatehouse.script.call(
                "POST", "/api/collections/_superusers/auth-with-password", ["identity": Self.email, "password": Self.password])
            let mfaID = try #require(attempt.json["mfaId"] as? String)
            return try await gatehouse.script.call(
                "POST", "/api/collections/_superusers/auth-with-otp", ["otpId": mfaID, "mfaId": mfaID, "password": code])
        }
        let done = try await viaPocketBase(codes[1])
        #expect(done.status == 200 && done.json["token"] is String, "\(done.text)")
        let replay = try await viaPocketBase(codes[1])
        #expect(replay.status == 400 && replay.json["token"] == nil)

        #expect(try await Self.apiAuth(gatehouse, code: codes[2]) == 200)
        #expect(try await Self.apiAuth(gatehouse, code: codes[2]) == 401, "spent")
        await gatehouse.stop()
    }

    @Test func newRecoveryCodesNeedThePasswordAndEndTheOldOnes() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (staff, _, old) = try await Self.superuserWithTOTP(gatehouse)
        _ = try await staff.get("/_/security")
        #expect(try await staff.post("/_/security/totp/recovery-codes", [("password", "wrong-password")]).status == 422)
        let made = try await staff.post("/_/security/totp/recovery-codes", [("password", Self.password)])
        #expect(made.status == 200)
        let new = TOTPPageTests.recoveryCodes(in: made.text)
        #expect(new.count == TOTPRules.recoveryCodeCount && Set(new).isDisjoint(with: old))

        #expect(try await Self.atSecondStep(gatehouse).post("/_/second-step", [("recovery_code", old[3])]).status == 422)
        #expect(try await Self.atSecondStep(gatehouse).post("/_/second-step", [("recovery_code", new[3])]).status == 303)
        let types = try await gatehouse.database.auditEvents(subject: nil, limit: 200).map(\.type)
        #expect(types.contains("console.totp.recovery_codes_regenerated"))
        await gatehouse.stop()
    }

    @Test func recoveryCodesAreStoredHashedAndGoWithTOTP() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let (staff, _, codes) = try await Self.superuserWithTOTP(gatehouse)
        var bytes = Data()
        for suffix in ["", "-wal"] {
            bytes.append((try? Data(contentsOf: URL(fileURLWithPath: gatehouse.databasePath + suffix))) ?? Data())
        }
        #expect(bytes.count > 0)
        for code in codes {
            for form in [code, RecoveryCodes.normalize(code)] {
                #expect(bytes.range(of: Data(form.utf8)) == nil, "no recovery code in plain text in the SQLite file")
            }
        }
        #expect(try await gatehouse.superuserRecoveryCodeRows() == TOTPRules.recoveryCodeCount)

        _ = try await staff.get("/_/security")
        let off = try await staff.post("/_/security/totp/disable", [("password", Self.password)])
        #expect(off.header("Location") == "/_/security?notice=totp-off")
        #expect(try await gatehouse.superuserRecoveryCodeRows() == 0, "turning TOTP off removes the codes")
        await gatehouse.stop()
    }
}

extension TestGatehouse {
    /// Superusers' rows in `recovery_codes`, whose values must be 64-hex keyed hashes.
    func superuserRecoveryCodeRows() async throws -> Int {
        let file = try DatabaseQueue(path: databasePath)
        let hashes = try await file.read { db in
            try String.fetchAll(db, sql: "SELECT code_hash FROM recovery_codes WHERE superuser_id IS NOT NULL")
        }
        try file.close()
        #expect(hashes.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) })
        return hashes.count
    }
}
