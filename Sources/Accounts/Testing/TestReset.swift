import AuthCore
import HTTPServer
import ServerSeam
import Store

/// A fresh start between tests (`POST /_/api/test/reset`): every person's account goes — with
/// their sessions, codes, links, passkeys, authenticator keys, provider links and tags —, the dev
/// mailbox is emptied, every budget is full again, every account clock is back on the server's,
/// and the faults and the request ledger are cleared. Superusers (and their sessions), apps and providers, management keys, webhook
/// endpoints and the audit log stay: the log is the record of who used the test controls, this
/// reset included.
public struct TestReset: Sendable {
    let env: Accounts
    let mailbox: DevMailbox
    let caller: TestControlCaller

    public init(env: Accounts, mailbox: DevMailbox, caller: TestControlCaller) {
        (self.env, self.mailbox, self.caller) = (env, mailbox, caller)
    }

    /// What a reset wiped.
    public struct Outcome: Sendable {
        public let people: Int
        public let mails: Int
        public let faults: Int
    }

    /// Wipes as described above; audited `test.reset` with the counts.
    public func reset(request: Request) async throws -> Outcome {
        let people = try await env.backend.admin.deleteAllUsers()
        let mails = try await mailbox.deleteAll()
        try await env.budgets.forgetAll()
        try await env.database.forgetAccountClocks()
        let faults = env.faults.removeAll()
        env.requestLedger.removeAll()
        await caller.record(
            .testReset, in: env, request: request,
            data: ["people": .number(Double(people)), "mails": .number(Double(mails)), "faults": .number(Double(faults))])
        return Outcome(people: people, mails: mails, faults: faults)
    }
}
