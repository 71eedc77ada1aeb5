import HTTPServer

/// The request ledger read by a test suite or staff (`RequestLedger`), each read audited.
public struct TestRequests: Sendable {
    let env: Accounts
    let caller: TestControlCaller

    public init(env: Accounts, caller: TestControlCaller) { (self.env, self.caller) = (env, caller) }

    /// Up to `limit` requests, newest first, only those with the id `id` when given.
    public func list(limit: Int, id: String?, request: Request) async -> [RequestLedger.Entry] {
        await caller.record(.testRequestsRead, in: env, request: request)
        let entries = env.requestLedger.newest(RequestLedger.capacity)
        guard let id else { return Array(entries.prefix(limit)) }
        return Array(entries.filter { $0.id == id }.prefix(limit))
    }
}
