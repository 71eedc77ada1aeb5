import Foundation
import HTTPTestClient
import Secrets
import TestScope
import Testing
import WebAuthnTestSupport

/// Issue 49, item 9: a passkey nobody named is called after where it lives — its authenticator's
/// AAGUID looked up among well-known providers — and "Passkey" when the AAGUID is unknown; a
/// superuser's console passkey by the same rule.
@Suite(.stopsWhatItStarts) struct PasskeyNameTests {
    /// 1Password's AAGUID, bada5566-a7aa-401f-bd96-45619a55120d.
    static let onePassword: [UInt8] = [
        0xba, 0xda, 0x55, 0x66, 0xa7, 0xaa, 0x40, 0x1f, 0xbd, 0x96, 0x45, 0x61, 0x9a, 0x55, 0x12, 0x0d
    ]

    @Test(arguments: [(onePassword, "1Password"), ([UInt8](repeating: 0, count: 16), "Passkey")])
    func aPasskeyIsNamedAfterItsAuthenticator(aaguid: [UInt8], name: String) async throws {
        let gatehouse = try await OAuthGatehouse()
        let trust = AccountTrustScript(gatehouse: gatehouse)
        var authenticator = try trust.authenticator()
        authenticator.aaguid = aaguid
        let signedUp = try await trust.signUpWithPasskeyOnThePages("vault@example.com", authenticator)
        #expect(signedUp.status == 200 || signedUp.status == 303, "\(signedUp.status): \(signedUp.text)")
        let user = try #require(try await gatehouse.database.user(email: "vault@example.com"))
        #expect(try await gatehouse.database.passkeys(of: user.id).map(\.name) == [name])
        await gatehouse.stop()
    }

    @Test(arguments: [(onePassword, "1Password"), ([UInt8](repeating: 0, count: 16), "Passkey")])
    func aConsolePasskeyIsNamedAfterItsAuthenticatorToo(aaguid: [UInt8], name: String) async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let staff = try await gatehouse.staffBrowser()
        let localhost = [("Host", "localhost:\(gatehouse.port)")]
        var authenticator = try SoftwareAuthenticator()
        authenticator.origin = "http://localhost:\(gatehouse.port)"
        authenticator.aaguid = aaguid
        let options = try await staff.post("/_/security/passkeys/options", [], headers: localhost)
        let encoded = (options.json["publicKey"] as? [String: Any])?["challenge"] as? String
        let challenge = try #require(encoded.flatMap(Base64URL.decode), "\(options.status): \(options.text)")
        let added = try await staff.post(
            "/_/security/passkeys", [("credential", try authenticator.registrationJSON(challenge: challenge)), ("name", " ")],
            headers: localhost)
        #expect(added.status == 200 && added.text.contains("passkey-added"), "\(added.status): \(added.text)")
        let page = try await staff.get("/_/security")
        #expect(page.text.contains("<strong data-passkey-name>\(name)</strong>"))
        await gatehouse.stop()
    }
}
