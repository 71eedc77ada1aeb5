import Foundation
import HTTPTestClient
import TestScope
import Testing

/// The InsForge-compatible auth API (issue 12) as InsForge's Swift SDK drives it: the anon key as
/// `Bearer` on signed-out calls, `client_type=mobile` with the refresh token in the body (snake
/// case on refresh), or `web` with the refresh cookie and its CSRF token.
@Suite(.stopsWhatItStarts) struct InsForgeAPITests {
    static let anon = "anon_local_app_key"
    static let password = "correct horse battery"

    private func call(
        _ gatehouse: TestGatehouse, _ method: String, _ path: String, json: Any? = nil, bearer: String? = InsForgeAPITests.anon,
        headers: [(String, String)] = [], raw: String? = nil
    ) async throws -> TestResponse {
        var all = headers
        if let bearer { all.append(("Authorization", "Bearer \(bearer)")) }
        var body: [UInt8] = []
        if let raw {
            body = Array(raw.utf8)
            all.append(("Content-Type", "application/json"))
        } else if let json {
            body = Array(try JSONSerialization.data(withJSONObject: json))
            all.append(("Content-Type", "application/json"))
        }
        return try await HTTPTestClient(port: gatehouse.port).request(method, path, headers: all, body: body)
    }

    private func expectEnvelope(
        _ response: TestResponse, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.json["error"] as? String == code, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.json["statusCode"] as? Int == status, sourceLocation: sourceLocation)
        #expect(
            (response.json["message"] as? String)?.isEmpty == false, "InsForge's SDK needs a message",
            sourceLocation: sourceLocation)
    }

    /// Signs up through the API with code verification and verifies with the mailed code.
    private func verifiedSession(_ gatehouse: TestGatehouse, email: String) async throws -> [String: Any] {
        let signUp = try await call(
            gatehouse, "POST", "/api/auth/users?client_type=mobile",
            json: ["email": email, "password": Self.password, "name": "Ada"])
        #expect(signUp.status == 200)
        #expect(signUp.json["requireEmailVerification"] as? Bool == true)
        #expect(signUp.json["accessToken"] is NSNull, "no tokens until verified")
        let code = try await gatehouse.latestCode(for: email)
        let verified = try await call(
            gatehouse, "POST", "/api/auth/email/verify?client_type=mobile", json: ["email": email, "otp": code])
        #expect(verified.status == 200, "\(verified.text)")
        return verified.json
    }

    @Test func signUpVerifySignInCurrentUserAndProfile() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let session = try await verifiedSession(gatehouse, email: "ada@example.com")
        let access = try #require(session["accessToken"] as? String)
        #expect(session["refreshToken"] is String)
        let user = try #require(session["user"] as? [String: Any])
        #expect(user["email"] as? String == "ada@example.com" && user["emailVerified"] as? Bool == true)
        #expect((user["createdAt"] as? String)?.contains("T") == true, "ISO-8601 dates for the Swift SDK")
        // The access token is a JWT with InsForge's claims.
        let payload = try #require(access.split(separator: ".").dropFirst().first)
        let claims = try #require(
            try JSONSerialization.jsonObject(with: Data(base64URL: String(payload))) as? [String: Any])
        #expect(claims["sub"] as? String == user["id"] as? String && claims["role"] as? String == "authenticated")
        #expect(claims["email"] as? String == "ada@example.com" && claims["exp"] is Int)

        let current = try await call(gatehouse, "GET", "/api/auth/sessions/current", bearer: access)
        #expect(current.status == 200 && (current.json["user"] as? [String: Any])?["id"] as? String == user["id"] as? String)
        // The anon key is not a user token.
        expectEnvelope(try await call(gatehouse, "GET", "/api/auth/sessions/current"), 401, "AUTH_UNAUTHORIZED")

        // Shallow merge; null removes a key; custom keys (numbers too) come back.
        let patched = try await call(
            gatehouse, "PATCH", "/api/auth/profiles/current", json: ["profile": ["bio": "Analyst", "level": 7]], bearer: access)
        #expect(patched.status == 200)
        #expect((patched.json["profile"] as? [String: Any])?["level"] as? Int == 7)
        #expect((patched.json["profile"] as? [String: Any])?["name"] as? String == "Ada")
        let removed = try await call(
            gatehouse, "PATCH", "/api/auth/profiles/current", json: ["profile": ["bio": NSNull()]], bearer: access)
        #expect((removed.json["profile"] as? [String: Any])?["bio"] == nil)
        let public_ = try await call(gatehouse, "GET", "/api/auth/profiles/\(user["id"] as? String ?? "")")
        #expect(public_.status == 200 && (public_.json["profile"] as? [String: Any])?["level"] as? Int == 7)
        expectEnvelope(try await call(gatehouse, "GET", "/api/auth/profiles/zzzzzzzzzzzzzzz"), 404, "NOT_FOUND")

        let signIn = try await call(
            gatehouse, "POST", "/api/auth/sessions?client_type=mobile",
            json: ["email": "ada@example.com", "password": Self.password])
        #expect(signIn.status == 200 && signIn.json["accessToken"] is String && signIn.json["refreshToken"] is String)
        await gatehouse.stop()
    }

    @Test func wrongPasswordAndUnknownEmailReadAlikeAndUnverifiedIsForbidden() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        _ = try await call(
            gatehouse, "POST", "/api/auth/users", json: ["email": "bob@example.com", "password": Self.password])
        let unverified = try await call(
            gatehouse, "POST", "/api/auth/sessions", json: ["email": "bob@example.com", "password": Self.password])
        expectEnvelope(unverified, 403, "FORBIDDEN")
        #expect(unverified.json["nextActions"] is String)
        let wrong = try await call(
            gatehouse, "POST", "/api/auth/sessions", json: ["email": "bob@example.com", "password": "nope nope nope"])
        let unknown = try await call(
            gatehouse, "POST", "/api/auth/sessions", json: ["email": "who@example.com", "password": "nope nope nope"])
        expectEnvelope(wrong, 401, "AUTH_UNAUTHORIZED")
        #expect(wrong.text == unknown.text)
        // A taken address signs up like a free one while addresses are verified (ResetAndEnumerationAttackTests).
        let taken = try await call(
            gatehouse, "POST", "/api/auth/users", json: ["email": "bob@example.com", "password": Self.password])
        #expect(taken.status == 200 && taken.json["requireEmailVerification"] as? Bool == true, "\(taken.text)")
        // Bad input: malformed JSON, wrong types, missing fields — 4xx in InsForge's envelope.
        expectEnvelope(try await call(gatehouse, "POST", "/api/auth/sessions", raw: "{not json"), 400, "INVALID_INPUT")
        let wrongType = try await call(gatehouse, "POST", "/api/auth/users", json: ["email": 42, "password": ["x"]])
        #expect(wrongType.status == 400 && wrongType.json["message"] is String)
        expectEnvelope(try await call(gatehouse, "POST", "/api/auth/email/verify", json: [:]), 400, "INVALID_INPUT")
        await gatehouse.stop()
    }

    @Test func mobileRefreshRotatesAndAReusedTokenEndsTheSession() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let signUp = try await call(
            gatehouse, "POST", "/api/auth/users?client_type=mobile", json: ["email": "cy@example.com", "password": Self.password])
        let first = try #require(signUp.json["refreshToken"] as? String)
        let access = try #require(signUp.json["accessToken"] as? String)
        // The Swift SDK sends `refresh_token` in snake case.
        let rotated = try await call(gatehouse, "POST", "/api/auth/refresh?client_type=mobile", json: ["refresh_token": first])
        #expect(rotated.status == 200, "\(rotated.text)")
        let second = try #require(rotated.json["refreshToken"] as? String)
        #expect(second != first)
        let newAccess = try #require(rotated.json["accessToken"] as? String)
        #expect(try await call(gatehouse, "GET", "/api/auth/sessions/current", bearer: newAccess).status == 200)
        // The first one again: reuse, the whole session ends.
        expectEnvelope(
            try await call(gatehouse, "POST", "/api/auth/refresh", json: ["refreshToken": first]), 401, "AUTH_UNAUTHORIZED")
        expectEnvelope(
            try await call(gatehouse, "POST", "/api/auth/refresh", json: ["refreshToken": second]), 401, "AUTH_UNAUTHORIZED")
        expectEnvelope(
            try await call(gatehouse, "GET", "/api/auth/sessions/current", bearer: newAccess), 401, "AUTH_UNAUTHORIZED")
        _ = access
        // Expiry: an access token is refused after 15 minutes; a refresh token still renews it.
        let again = try await call(
            gatehouse, "POST", "/api/auth/sessions?client_type=mobile",
            json: ["email": "cy@example.com", "password": Self.password])
        let againAccess = try #require(again.json["accessToken"] as? String)
        gatehouse.clock.advance(16 * 60)
        expectEnvelope(
            try await call(gatehouse, "GET", "/api/auth/sessions/current", bearer: againAccess), 401, "AUTH_UNAUTHORIZED")
        let renewed = try await call(
            gatehouse, "POST", "/api/auth/refresh", json: ["refreshToken": try #require(again.json["refreshToken"] as? String)])
        #expect(renewed.status == 200)
        await gatehouse.stop()
    }

    @Test func webClientsKeepTheRefreshTokenInACookieGuardedByCSRF() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let signUp = try await call(
            gatehouse, "POST", "/api/auth/users?client_type=web", json: ["email": "di@example.com", "password": Self.password])
        #expect(signUp.json["refreshToken"] == nil, "web clients never see the refresh token")
        let csrf = try #require(signUp.json["csrfToken"] as? String)
        let setCookie = try #require(signUp.headerValues("Set-Cookie").first { $0.hasPrefix("insforge_refresh_token=") })
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("Path=/api/auth"))
        let cookie = String(setCookie.split(separator: ";")[0])
        // Without the CSRF header a cross-site form could refresh: refused.
        expectEnvelope(try await call(gatehouse, "POST", "/api/auth/refresh", headers: [("Cookie", cookie)]), 403, "CSRF_INVALID")
        let refreshed = try await call(
            gatehouse, "POST", "/api/auth/refresh?client_type=web", headers: [("Cookie", cookie), ("X-CSRF-Token", csrf)])
        #expect(refreshed.status == 200, "\(refreshed.text)")
        #expect(refreshed.json["csrfToken"] as? String != csrf)
        let access = try #require(refreshed.json["accessToken"] as? String)
        // Logout revokes on the server and clears the cookie.
        let logout = try await call(gatehouse, "POST", "/api/auth/logout", bearer: access)
        #expect(logout.status == 200 && logout.json["success"] as? Bool == true)
        #expect(logout.headerValues("Set-Cookie").contains { $0.hasPrefix("insforge_refresh_token=;") })
        expectEnvelope(try await call(gatehouse, "GET", "/api/auth/sessions/current", bearer: access), 401, "AUTH_UNAUTHORIZED")
        await gatehouse.stop()
    }

    /// Issue 22 item 13: logout clears the web refresh cookie only with its `X-CSRF-Token`, as
    /// refresh does — a cross-site form (which sends the cookie, not the header) cannot sign the
    /// app out.
    @Test func aCrossSiteLogoutCannotClearTheRefreshCookie() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let signUp = try await call(
            gatehouse, "POST", "/api/auth/users?client_type=web", json: ["email": "jo@example.com", "password": Self.password])
        let csrf = try #require(signUp.json["csrfToken"] as? String, "\(signUp.text)")
        let setCookie = try #require(signUp.headerValues("Set-Cookie").first { $0.hasPrefix("insforge_refresh_token=") })
        let cookie = String(setCookie.split(separator: ";")[0])
        for headers in [[("Cookie", cookie)], [("Cookie", cookie), ("X-CSRF-Token", "forged")]] {
            let forged = try await call(gatehouse, "POST", "/api/auth/logout", bearer: nil, headers: headers)
            expectEnvelope(forged, 403, "CSRF_INVALID")
            #expect(!forged.headerValues("Set-Cookie").contains { $0.hasPrefix("insforge_refresh_token=") }, "cookie cleared")
        }
        let logout = try await call(
            gatehouse, "POST", "/api/auth/logout", bearer: nil, headers: [("Cookie", cookie), ("X-CSRF-Token", csrf)])
        #expect(logout.status == 200 && logout.json["success"] as? Bool == true, "\(logout.text)")
        #expect(logout.headerValues("Set-Cookie").contains { $0.hasPrefix("insforge_refresh_token=;") })
        await gatehouse.stop()
    }

    @Test func aConfiguredAnonKeyIsChecked() async throws {
        let gatehouse = try await TestGatehouse(verification: .none, anonKey: Self.anon)
        let good = try await call(
            gatehouse, "POST", "/api/auth/users", json: ["email": "ed@example.com", "password": Self.password])
        #expect(good.status == 200)
        expectEnvelope(
            try await call(
                gatehouse, "POST", "/api/auth/sessions", json: ["email": "ed@example.com", "password": Self.password],
                bearer: "anon_other"),
            401, "AUTH_UNAUTHORIZED")
        // A user's own access token is never taken for a wrong anon key.
        let access = try #require(good.json["accessToken"] as? String)
        #expect(try await call(gatehouse, "GET", "/api/auth/sessions/current", bearer: access).status == 200)
        await gatehouse.stop()
    }

    @Test func adminListAndDeleteNeedASuperuserToken() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        for name in ["fay", "gus", "hal"] {
            _ = try await call(
                gatehouse, "POST", "/api/auth/users", json: ["email": "\(name)@example.com", "password": Self.password])
        }
        expectEnvelope(try await call(gatehouse, "GET", "/api/auth/users"), 401, "AUTH_UNAUTHORIZED")
        let staff = try await gatehouse.adminToken()
        let page = try await call(gatehouse, "GET", "/api/auth/users?limit=2&offset=1", bearer: staff)
        #expect(page.status == 200, "\(page.text)")
        #expect((page.json["data"] as? [Any])?.count == 2)
        #expect((page.json["pagination"] as? [String: Any])?["total"] as? Int == 3)
        let all = try #require(
            try await call(gatehouse, "GET", "/api/auth/users?limit=10", bearer: staff).json["data"] as? [[String: Any]])
        let ids = all.compactMap { $0["id"] as? String }
        let deleted = try await call(
            gatehouse, "DELETE", "/api/auth/users", json: ["userIds": Array(ids.prefix(2))], bearer: staff)
        #expect(deleted.status == 200 && deleted.json["deletedCount"] as? Int == 2)
        #expect((try await call(gatehouse, "GET", "/api/auth/users", bearer: staff).json["data"] as? [Any])?.count == 1)
        await gatehouse.stop()
    }

    @Test func resetByCodeThroughTheExchangeEndsTheOldSessions() async throws {
        let gatehouse = try await TestGatehouse(verification: .code)
        let session = try await verifiedSession(gatehouse, email: "ivy@example.com")
        let access = try #require(session["accessToken"] as? String)
        let known = try await call(gatehouse, "POST", "/api/auth/email/send-reset-password", json: ["email": "ivy@example.com"])
        let unknown = try await call(
            gatehouse, "POST", "/api/auth/email/send-reset-password", json: ["email": "nobody@example.com"])
        #expect(known.status == 202 && known.text == unknown.text, "every address gets the same answer")
        let code = try #require(try await gatehouse.mails(to: "ivy@example.com").first?["code"] as? String)
        expectEnvelope(
            try await call(
                gatehouse, "POST", "/api/auth/email/exchange-reset-password-token",
                json: ["email": "ivy@example.com", "code": code == "000000" ? "111111" : "000000"]),
            400, "AUTH_INVALID_OTP")
        let exchanged = try await call(
            gatehouse, "POST", "/api/auth/email/exchange-reset-password-token", json: ["email": "ivy@example.com", "code": code])
        let token = try #require(exchanged.json["token"] as? String, "\(exchanged.text)")
        let reset = try await call(
            gatehouse, "POST", "/api/auth/email/reset-password", json: ["otp": token, "newPassword": "a brand new passphrase"])
        #expect(reset.status == 200 && reset.json["success"] as? Bool == true)
        expectEnvelope(try await call(gatehouse, "GET", "/api/auth/sessions/current", bearer: access), 401, "AUTH_UNAUTHORIZED")
        let signIn = try await call(
            gatehouse, "POST", "/api/auth/sessions", json: ["email": "ivy@example.com", "password": "a brand new passphrase"])
        #expect(signIn.status == 200)
        expectEnvelope(
            try await call(
                gatehouse, "POST", "/api/auth/email/reset-password", json: ["otp": token, "newPassword": "another one here"]),
            400, "AUTH_INVALID_OTP")
        await gatehouse.stop()
    }
}

extension Data {
    /// Base64url without padding, as JWT parts are written.
    init(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self = Data(base64Encoded: base64) ?? Data()
    }
}
