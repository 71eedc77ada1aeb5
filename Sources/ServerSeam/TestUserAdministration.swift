import AuthCore

/// Test data at scale (issue 13): accounts made from a pattern or read from a file, all or none,
/// and every account wiped — for the console's test-users page, its JSON API and `gatehouse
/// users`/`reset`, never an app. The embedded admin side conforms and does each in one transaction;
/// any other admin side is worked one account at a time (`RecordByRecordTestUsers`).
public protocol TestUserAdministration: Sendable {
    /// Creates `seed.count` accounts from `seed.pattern`, all or none, telling `progress` how many of
    /// the batch exist so far (a progress bar on the command line). An invalid seed or any address
    /// already taken → `AuthError.validation` (fields `count`, `pattern`, `password`).
    func seed(_ seed: UserSeed, progress: @escaping @Sendable (Int) -> Void) async throws -> [UserID]
    /// Every problem `importAll` would refuse `rows` for, without writing anything.
    func problems(importing rows: [ImportedUser]) async throws -> [ImportProblem]
    /// Creates every row's account, all or none; any bad row → `ImportRejected` naming each one.
    func importAll(_ rows: [ImportedUser]) async throws -> [UserID]
    /// Deletes every account and ends every session of them (`gatehouse reset`); returns how many
    /// accounts there were.
    func deleteEveryUser() async throws -> Int
}

/// The server's words for test users on any admin side.
extension AuthAdminAPI {
    /// This admin side's own bulk work, or one account at a time through `createUser`.
    public var testUsers: any TestUserAdministration {
        self as? any TestUserAdministration ?? RecordByRecordTestUsers(admin: self)
    }

    public func seedUsers(_ seed: UserSeed) async throws -> [UserID] {
        try await testUsers.seed(seed, progress: { _ in })
    }

    public func seedUsers(_ seed: UserSeed, progress: @escaping @Sendable (Int) -> Void) async throws -> [UserID] {
        try await testUsers.seed(seed, progress: progress)
    }

    public func importProblems(_ rows: [ImportedUser]) async throws -> [ImportProblem] {
        try await testUsers.problems(importing: rows)
    }

    public func importUsers(_ rows: [ImportedUser]) async throws -> [UserID] {
        try await testUsers.importAll(rows)
    }

    public func deleteAllUsers() async throws -> Int {
        try await testUsers.deleteEveryUser()
    }
}
