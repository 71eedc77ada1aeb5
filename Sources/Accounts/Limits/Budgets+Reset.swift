extension Budgets {
    /// Forgets every count, so every budget is full again (the test controls' reset).
    func forgetAll() async throws {
        try await database.withRateLedger { try $0.forgetAll() }
    }
}
