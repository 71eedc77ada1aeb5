/// Runs one task per key at a time: callers that ask for a key while its task runs await the same
/// result instead of starting another. Used where doing the work twice would be wrong, not just
/// slow (renewing a session whose refresh token rotates).
actor SingleFlight<Key: Hashable & Sendable, Value: Sendable> {
    private var running: [Key: Task<Value, Never>] = [:]

    public func run(key: Key, _ work: @escaping @Sendable () async -> Value) async -> Value {
        if let task = running[key] { return await task.value }
        let task = Task { await work() }
        running[key] = task
        let value = await task.value
        running[key] = nil
        return value
    }
}
