import Foundation
import HTTPTestClient
import TestScope
import Testing

/// The FDI's passwordless sign-in by mailed code, as the frontend SDKs drive it: the code is
/// Gatehouse's mail, the device ids are the frontend's, a right code signs in (creating the
/// account, proving the address), wrong ones are counted.
@Suite(.stopsWhatItStarts) struct SuperTokensFDIPasswordlessTests {
    static func startCode(_ app: FDIScript, _ email: String) async throws -> (deviceID: String, preAuthSessionID: String) {
        let started = try await app.call("POST", "/auth/signinup/code", ["email": email], rid: "passwordless")
        #expect(
            started.json["status"] as? String == "OK" && started.json["flowType"] as? String == "USER_INPUT_CODE_AND_MAGIC_LINK",
            "\(started.json)")
        return (try #require(started.json["deviceId"] as? String), try #require(started.json["preAuthSessionId"] as? String))
    }

    static func consume(_ app: FDIScript, _ device: (deviceID: String, preAuthSessionID: String), _ code: String) async throws
        -> [String: Any]
    {
        try await app.call(
            "POST", "/auth/signinup/code/consume",
            ["preAuthSessionId": device.preAuthSessionID, "deviceId": device.deviceID, "userInputCode": code], rid: "passwordless"
        ).json
    }

    /// A new address: a wrong code is counted (1 of 5), the mailed code signs in with a new
    /// account whose address is proven (`st-ev` true); the next sign-in finds the same account.
    @Test func aMailedCodeSignsInAndCreatesTheAccount() async throws {
        let gatehouse = try await TestGatehouse()
        let app = FDIScript(gatehouse)
        let device = try await Self.startCode(app, "kai@example.com")
        let code = try await gatehouse.latestCode(for: "kai@example.com")
        let wrong = try await Self.consume(app, device, code == "000000" ? "111111" : "000000")
        #expect(wrong["status"] as? String == "INCORRECT_USER_INPUT_CODE_ERROR", "\(wrong)")
        #expect(wrong["failedCodeInputAttemptCount"] as? Int == 1 && wrong["maximumCodeInputAttempts"] as? Int == 5)
        let signedIn = try await Self.consume(app, device, code)
        #expect(signedIn["status"] as? String == "OK" && signedIn["createdNewRecipeUser"] as? Bool == true, "\(signedIn)")
        let methods = (signedIn["user"] as? [String: Any])?["loginMethods"] as? [[String: Any]]
        #expect(methods?.first?["recipeId"] as? String == "passwordless")
        #expect(app.emailVerifiedClaim == true && app.accessToken != nil)
        #expect(try await Self.consume(app, device, code)["status"] as? String == "RESTART_FLOW_ERROR", "a device is spent once")

        gatehouse.clock.advance(61)
        let again = FDIScript(gatehouse)
        let second = try await Self.startCode(again, "kai@example.com")
        let answer = try await Self.consume(again, second, try await gatehouse.latestCode(for: "kai@example.com"))
        #expect(answer["createdNewRecipeUser"] as? Bool == false)
        #expect((answer["user"] as? [String: Any])?["id"] as? String == (signedIn["user"] as? [String: Any])?["id"] as? String)
    }

    /// A resend inside the minute between mails is held (429, the pages' cool-down); after it, a
    /// new code comes. A resend naming another flow's pre-auth session,
    /// and a device out of tries, restart the flow.
    @Test func resendsWrongCodesAndForeignDevices() async throws {
        let gatehouse = try await TestGatehouse()
        let app = FDIScript(gatehouse)
        let device = try await Self.startCode(app, "lu@example.com")
        let body = ["deviceId": device.deviceID, "preAuthSessionId": device.preAuthSessionID]
        let early = try await app.call("POST", "/auth/signinup/code/resend", body, rid: "passwordless")
        #expect(early.status == 429 && Int(early.response.header("Retry-After") ?? "") ?? 0 > 0, "\(early.json)")
        let foreign = try await app.call(
            "POST", "/auth/signinup/code/resend", ["deviceId": device.deviceID, "preAuthSessionId": "other"])
        #expect(foreign.json["status"] as? String == "RESTART_FLOW_ERROR")
        gatehouse.clock.advance(61)
        #expect(try await app.call("POST", "/auth/signinup/code/resend", body).json["status"] as? String == "OK")
        let second = try await gatehouse.latestCode(for: "lu@example.com")
        for _ in 0..<5 {
            _ = try await Self.consume(app, device, second == "000000" ? "111111" : "000000")
        }
        let spentTries = try await Self.consume(app, device, second)
        #expect(spentTries["status"] as? String != "OK", "five wrong codes end the code: \(spentTries)")
    }

    /// The magic link mailed beside the code opens the app's `verify` page with the pre-auth
    /// session id and, in the fragment, the link code: spent from another device it signs in
    /// once; the link again, or the first device's code afterwards, restarts the flow.
    @Test func theMagicLinkSignsInOnAnotherDeviceOnce() async throws {
        let gatehouse = try await TestGatehouse()
        let phone = FDIScript(gatehouse)
        let device = try await Self.startCode(phone, "mia@example.com")
        let link = try #require(
            try await gatehouse.mails(to: "mia@example.com").compactMap { $0["link"] as? String }.first { $0.contains("#") })
        let url = try #require(URLComponents(string: link))
        #expect(link.hasPrefix(TestGatehouse.superTokensAppOrigin + "/auth/verify?"))
        #expect(url.queryItems?.first { $0.name == "preAuthSessionId" }?.value == device.preAuthSessionID)
        let linkCode = try #require(url.fragment)
        let laptop = FDIScript(gatehouse)
        let body = ["preAuthSessionId": device.preAuthSessionID, "linkCode": linkCode]
        let opened = try await laptop.call("POST", "/auth/signinup/code/consume", body, rid: "passwordless")
        #expect(
            opened.json["status"] as? String == "OK" && opened.json["createdNewRecipeUser"] as? Bool == true, "\(opened.json)")
        #expect(laptop.accessToken != nil && laptop.emailVerifiedClaim == true)
        let again = try await FDIScript(gatehouse).call("POST", "/auth/signinup/code/consume", body, rid: "passwordless")
        #expect(again.json["status"] as? String == "RESTART_FLOW_ERROR" && again.response.header("st-access-token") == nil)
        let code = try await Self.consume(phone, device, try await gatehouse.latestCode(for: "mia@example.com"))
        #expect(code["status"] as? String == "RESTART_FLOW_ERROR", "\(code)")
    }
}
