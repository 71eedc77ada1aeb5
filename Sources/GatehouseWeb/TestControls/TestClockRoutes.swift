import Accounts
import AuthCore
import Foundation
import HTTPServer

/// A clock per account (README "Test controls"): `POST /_/api/test/clock {email|userId, seconds}`
/// moves one account's time ahead, `POST /_/api/test/clock/expire-now {email|userId, kind}` ends
/// one kind of its credentials at once (`AccountClockControl`).
struct TestClockRoutes: Sendable {
    let api: TestControlsAPI
    var env: PageEnvironment { api.env }

    struct AdvanceBody: Decodable {
        var email: String?
        var userId: String?
        var seconds: Double
    }

    struct ExpireBody: Decodable {
        var email: String?
        var userId: String?
        var kind: String
    }

    /// The account's clock after a move.
    struct Advanced: Encodable {
        var userId: String
        var offsetSeconds: Double
        var now: String
    }

    struct Expired: Encodable {
        var userId: String
        var kind: String
        var ended: Int
    }

    func register(on router: inout Router) {
        api.on(&router, .post, "/clock") { request, _, caller in
            let body: AdvanceBody = try request.decodeJSON()
            let clock = AccountClockControl(env: env.accounts, caller: caller)
            let user = try await clock.account(email: body.email, userID: body.userId)
            let (offset, now) = try await clock.advance(user, seconds: body.seconds, request: request)
            return try .json(
                Advanced(userId: user.id.rawValue, offsetSeconds: offset, now: now.formatted(.iso8601)))
        }
        api.on(&router, .post, "/clock/expire-now") { request, _, caller in
            let body: ExpireBody = try request.decodeJSON()
            guard let kind = AccountClockControl.Kind(rawValue: body.kind) else {
                let kinds = AccountClockControl.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw APIFailure.invalid("kind: send one of \(kinds).")
            }
            let clock = AccountClockControl(env: env.accounts, caller: caller)
            let user = try await clock.account(email: body.email, userID: body.userId)
            let ended = try await clock.expireNow(user, kind: kind, request: request)
            return try .json(Expired(userId: user.id.rawValue, kind: kind.rawValue, ended: ended))
        }
    }
}
