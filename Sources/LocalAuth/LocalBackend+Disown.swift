import ServerSeam

extension LocalBackend: DisownableAccounts {
    public func disownableAccount(token: String) async throws -> String? {
        try await accounts.disownableAccount(token: token)
    }

    public func disownAccount(token: String) async throws -> String? {
        try await accounts.disownAccount(token: token)
    }
}
