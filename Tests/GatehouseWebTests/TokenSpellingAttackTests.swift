import Foundation
import GatehouseWeb
import HTTPTestClient
import Secrets
import TestScope
import Testing

/// Issue 42, item 3: Gatehouse's own ES256 tokens have one spelling. Its signer writes low-S
/// signatures and no padding; the twin of a signature (r, n − s), which verifies as well, and a
/// padded token are other spellings an app or a log could be handed, and are refused.
@Suite(.stopsWhatItStarts) struct TokenSpellingAttackTests {
    /// `token` with its ES256 signature's twin: (r, n − s) for P-256's group order n.
    static func twin(of token: String) throws -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let signature = Base64URL.decode(parts[2]), signature.count == 64 else {
            throw TestFailure("not an ES256 JWT: \(token)")
        }
        let digits = Array("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551".utf8)
        let order = stride(from: 0, to: 64, by: 2).map {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16) ?? 0
        }
        var s = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in (0..<32).reversed() {
            let difference = Int(order[index]) - Int(signature[32 + index]) - borrow
            s[index] = UInt8((difference + 256) % 256)
            borrow = difference < 0 ? 1 : 0
        }
        return parts[0] + "." + parts[1] + "." + Base64URL.encode(Array(signature[..<32]) + s)
    }

    @Test func aDescopeRefreshJWTInAnotherSpellingIsRefused() async throws {
        let gatehouse = try await TestGatehouse(verification: .none)
        let project = DescopeProject.generated(from: try gatehouse.database.secretKey(named: "descope-project-id")).ids[0]
        let up = try await gatehouse.script.call(
            "POST", "/v1/auth/password/signup", ["loginId": "spelling@example.com", "password": "correct horse battery"],
            bearer: project)
        let refresh = try #require(up.json["refreshJwt"] as? String, "\(up.text)")
        for (name, spelling) in [("twin signature", try Self.twin(of: refresh)), ("padded", refresh + "=")] {
            let me = try await gatehouse.script.call("GET", "/v1/auth/me", bearer: "\(project):\(spelling)")
            #expect(me.status == 401, "\(name) opened the session: \(me.text)")
        }
        #expect(try await gatehouse.script.call("GET", "/v1/auth/me", bearer: "\(project):\(refresh)").status == 200)
        await gatehouse.stop()
    }
}
