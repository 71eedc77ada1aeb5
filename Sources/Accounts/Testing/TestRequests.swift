import HTTPServer

/// The request ledger read by a test suite or staff (`RequestLedger`).
public struct TestRequests: Sendable {
    let env: Accounts
    let caller: TestControlCaller

    public init(env: Accounts, caller: TestControlCaller) { (self.env, self.caller) = (env, caller) }

    /// Up to `limit` requests, newest first, only those with the id `id` when given; each read is
    /// audited (a test suite's use of the controls).
    public func list(limit: Int, id: String?, request: Request) async -> [RequestLedger.Entry] {
        await caller.record(.testRequestsRead, in: env, request: request)
        guard let id else { return newest(limit) }
        return Array(env.requestLedger.newest(RequestLedger.capacity).filter { $0.id == id }.prefix(limit))
    }

    /// Up to `limit` requests, newest first, as the Testing page shows them beside its controls:
    /// showing a page is no act, so it is not audited (the console's other lists are not either).
    public func newest(_ limit: Int) -> [RequestLedger.Entry] { env.requestLedger.newest(limit) }
}
