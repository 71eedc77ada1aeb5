import Accounts
import HTTPServer

/// `POST /_/api/test/reset` — a fresh start between tests (`TestReset`: what goes and what stays).
struct TestResetRoutes: Sendable {
    let api: TestControlsAPI

    struct Answer: Encodable {
        var people: Int
        var mails: Int
        var faults: Int
    }

    func register(on router: inout Router) {
        api.on(&router, .post, "/reset") { request, _, caller in
            let outcome = try await TestReset(env: api.env.accounts, mailbox: api.env.mailbox, caller: caller)
                .reset(request: request)
            return try .json(Answer(people: outcome.people, mails: outcome.mails, faults: outcome.faults))
        }
    }
}
