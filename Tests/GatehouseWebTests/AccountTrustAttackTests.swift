import AuthCore
import Foundation
import HTTPTestClient
import TestScope
import Testing
import WebAuthnTestSupport

/// Issue 42, item 1: account pre-hijacking, tried on every way in that can make an account whose
/// address nobody has proven, crossed with every way its owner can prove the address. After the
/// proof the attacker's every credential and session is dead (`AccountTrust`).
@Suite(.stopsWhatItStarts) struct AccountTrustAttackTests {
    static let victim = "victim@example.com"
    static let attackerPassword = "mallory's own passphrase 42"
    static let ownerPassword = "the owner's own passphrase"

    /// A way in on which the attacker signs the victim's address up.
    enum WayIn: String, CaseIterable, Sendable {
        case pagesPassword, pagesPasskey, pocketBase, insForge, descopePassword, descopePasskey, superTokens
    }

    /// A way the owner proves the address.
    enum Proof: String, CaseIterable, Sendable {
        case verificationCode, verificationLink, reset, signInCode, magicLink
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var way: WayIn
        var proof: Proof
        var testDescription: String { "\(way.rawValue) × \(proof.rawValue)" }
    }

    static let cases = WayIn.allCases.flatMap { way in Proof.allCases.map { Case(way: way, proof: $0) } }

    @Test(arguments: cases) func theOwnersProofEndsEverythingTheAttackerHeld(_ check: Case) async throws {
        let gatehouse = try await OAuthGatehouse(verification: check.proof == .verificationLink ? .link : .code)
        let trust = AccountTrustScript(gatehouse: gatehouse)
        let held = try await Self.attack(check.way, trust)
        try await Self.prove(check.proof, trust)
        for holding in held {
            #expect(try await !holding.alive(), "\(check.testDescription): the attacker's \(holding.name) survived the proof")
        }
        #expect(try await gatehouse.auditTypes().contains("account.proven"), "\(check.testDescription): no account.proven")
        await gatehouse.stop()
    }

    /// The attacker signs `victim` up on `way`; what they hold afterwards.
    static func attack(_ way: WayIn, _ trust: AccountTrustScript) async throws -> [AccountTrustScript.Holding] {
        switch way {
        case .pagesPassword:
            let browser = trust.gatehouse.browser()
            _ = try await browser.get("/auth/sign-up")
            let signedUp = try await browser.post("/auth/sign-up", [("email", victim), ("password", attackerPassword)])
            try expect(signedUp.status == 303, "page sign-up", signedUp)
            return [trust.password(victim, attackerPassword)]
        case .pagesPasskey:
            let signedUp = try await trust.signUpWithPasskeyOnThePages(victim, try trust.authenticator())
            try expect(signedUp.status == 200, "page passkey sign-up", signedUp)
            return [trust.passkey(victim)]
        case .pocketBase:
            let created = try await trust.pocketBase(
                "records", ["email": victim, "password": attackerPassword, "passwordConfirm": attackerPassword])
            try expect(created.status == 200, "PocketBase create", created)
            return [trust.password(victim, attackerPassword)]
        case .insForge:
            let created = try await trust.script.call("POST", "/api/auth/users", ["email": victim, "password": attackerPassword])
            try expect(created.status == 200, "InsForge users", created)
            return [trust.password(victim, attackerPassword)]
        case .descopePassword:
            let signedUp = try await trust.descope("/v1/auth/password/signup", ["loginId": victim, "password": attackerPassword])
            let refresh = try require(signedUp.json["refreshJwt"] as? String, "password/signup", signedUp)
            return [trust.password(victim, attackerPassword), trust.descopeSession(refresh)]
        case .descopePasskey:
            let signedUp = try await trust.signUpWithPasskeyOnDescope(victim, try trust.authenticator())
            let refresh = try require(signedUp.json["refreshJwt"] as? String, "webauthn/signup/finish", signedUp)
            return [trust.passkey(victim), trust.descopeSession(refresh)]
        case .superTokens:
            let signedUp = try await trust.superTokens("/recipe/signup", ["email": victim, "password": attackerPassword])
            let user = try require((signedUp.json["user"] as? [String: Any])?["id"] as? String, "recipe/signup", signedUp)
            let session = try await trust.superTokens(
                "/recipe/session",
                ["userId": user, "userDataInJWT": [:], "userDataInDatabase": [:], "enableAntiCsrf": false])
            let access = try require(
                (session.json["accessToken"] as? [String: Any])?["token"] as? String, "recipe/session", session)
            return [trust.password(victim, attackerPassword), trust.superTokensSession(access)]
        }
    }

    /// The owner proves `victim` by `proof`, past the sign-up's mail cool-down.
    static func prove(_ proof: Proof, _ trust: AccountTrustScript) async throws {
        trust.gatehouse.clock.advance(61)
        switch proof {
        case .verificationCode:
            let asked = try await trust.script.call("POST", "/api/auth/email/send-verification", ["email": victim])
            try expect(asked.status == 202, "send-verification", asked)
            let code = try await trust.newestMail(to: victim, with: "code")
            let verified = try await trust.script.call("POST", "/api/auth/email/verify", ["email": victim, "otp": code])
            try expect(verified.status == 200, "email/verify", verified)
        case .verificationLink:
            try expect(
                try await trust.pocketBase("request-verification", ["email": victim]).status == 204, "request-verification")
            let token = try AttackScript.linkToken(in: try await trust.newestMail(to: victim, with: "link"))
            let confirmed = try await trust.pocketBase("confirm-verification", ["token": token])
            try expect(confirmed.status == 204, "confirm-verification", confirmed)
        case .reset:
            try expect(try await trust.pocketBase("request-password-reset", ["email": victim]).status == 204, "reset request")
            let token = try AttackScript.linkToken(in: try await trust.newestMail(to: victim, with: "link"))
            let reset = try await trust.pocketBase(
                "confirm-password-reset", ["token": token, "password": ownerPassword, "passwordConfirm": ownerPassword])
            try expect(reset.status == 204, "confirm-password-reset", reset)
        case .signInCode:
            let asked = try await trust.pocketBase("request-otp", ["email": victim])
            let otpID = try require(asked.json["otpId"] as? String, "request-otp", asked)
            let code = try await trust.newestMail(to: victim, with: "code")
            let signedIn = try await trust.pocketBase("auth-with-otp", ["otpId": otpID, "password": code])
            try expect(signedIn.status == 200, "auth-with-otp", signedIn)
        case .magicLink:
            let asked = try await trust.descope(
                "/v1/auth/magiclink/signin/email", ["loginId": victim, "URI": "http://localhost:3000/signed-in"])
            try expect(asked.status == 200, "magiclink/signin", asked)
            let link = try await trust.newestMail(to: victim, with: "link")
            let token = try require(
                URLComponents(string: link)?.queryItems?.first { $0.name == "t" }?.value, "the magic link", link)
            let verified = try await trust.descope("/v1/auth/magiclink/verify", ["token": token])
            try expect(verified.status == 200, "magiclink/verify", verified)
        }
    }

    static func expect(_ condition: Bool, _ what: String, _ response: TestResponse? = nil) throws {
        guard condition else {
            throw TestFailure("\(what) answered \(response?.status ?? 0): \(response?.text.prefix(300) ?? "")")
        }
    }

    static func require<T>(_ value: T?, _ what: String, _ response: TestResponse) throws -> T {
        try require(value, what, "\(response.status): \(response.text.prefix(300))")
    }

    static func require<T>(_ value: T?, _ what: String, _ answer: String) throws -> T {
        guard let value else { throw TestFailure("\(what) answered \(answer)") }
        return value
    }
}
