import AuthCore
import Foundation
import Testing

@testable import LocalAuth
@testable import Store

/// Issue 9, item 9: the 5-try limit on a code holds under parallel guessing. Before, every check
/// read the token, compared, and only then counted: 20 parallel guesses could all be compared.
@Suite struct ConcurrentCodeGuessTests {
    @Test func twentyParallelWrongGuessesGetExactlyFiveComparisonsAndKillTheCode() async throws {
        let h = try Harness()
        let code = try await h.signUpForCode("ann@example.com")
        let backend = h.backend
        let wrong = wrongCode(than: code)
        let answers = await withTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    do {
                        _ = try await backend.verifyEmail(email: "ann@example.com", code: wrong)
                        return "verified"
                    } catch AuthError.invalidCode {
                        return "compared"
                    } catch AuthError.codeExpired {
                        return "dead"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        }
        #expect(answers == ["compared": 5, "dead": 15], "only five guesses may ever be compared")
        await #expect(throws: AuthError.codeExpired) {
            try await h.backend.verifyEmail(email: "ann@example.com", code: code)
        }
        let attempts = try await h.database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT attempts FROM verification_tokens")
        }
        #expect(attempts == 5)
    }
}
