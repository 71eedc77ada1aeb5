import AuthCore
import Foundation
import Testing

@testable import Accounts

/// A source's budgets, taken by the owners before anything reaches the backend: out of tries, a
/// source is refused with the wait, and another source is not.
@Suite struct BudgetTests {
    @Test func aSourceOutOfCodeChecksIsThrottledAndAnotherSourceIsNot() async throws {
        let h = try AccountsHarness()
        let codes = EmailCodeSignIn(env: h.accounts, via: nil)
        for _ in 0..<30 {
            let result = try await codes.attempt(
                otpID: nil, code: "123456", email: nil, request: try h.request(from: "198.51.100.1"))
            #expect(result == .refused(.wrongCode))
        }
        guard
            case .refused(.throttled(let wait)) = try await codes.attempt(
                otpID: nil, code: "123456", email: nil, request: try h.request(from: "198.51.100.1"))
        else { throw TestFailure("the 31st code check in five minutes went through") }
        #expect(wait > 0 && wait <= 5 * 60)
        let elsewhere = try await codes.attempt(
            otpID: nil, code: "123456", email: nil, request: try h.request(from: "198.51.100.2"))
        #expect(elsewhere == .refused(.wrongCode))
        h.advance(by: 5 * 60 + 1)
        let later = try await codes.attempt(otpID: nil, code: "123456", email: nil, request: try h.request(from: "198.51.100.1"))
        #expect(later == .refused(.wrongCode), "the window ended")
    }

    @Test func aSourceOutOfSecondStepsIsThrottledBeforeTheBackendLooks() async throws {
        let h = try AccountsHarness()
        let steps = SecondStepSignIn(env: h.accounts, via: nil)
        for _ in 0..<30 {
            _ = try await steps.attempt(challengeID: "no-such-challenge", factor: .totp(code: "000000"), request: try h.request())
        }
        guard
            case .refused(.throttled) = try await steps.attempt(
                challengeID: "no-such-challenge", factor: .totp(code: "000000"), request: try h.request())
        else { throw TestFailure("the 31st second step in five minutes went through") }
    }
}
