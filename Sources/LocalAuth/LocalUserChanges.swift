import AuthCore
import ServerSeam
import Store

/// The embedded backend's account changes, read from the log SQLite's triggers keep
/// (`user_changes`), so changes made by another process on the same file (`gatehouse users seed`)
/// are seen too. Waiting is polling: one indexed read every `pollInterval`, only while a reader
/// is waiting.
struct LocalUserChanges: UserChangeFeed {
    let database: AppDatabase
    var pollInterval: Duration = .milliseconds(100)
    /// The most changes one answer carries; the rest come with the next call.
    static let batchSize = 500

    func latest() async throws -> UserChangePosition {
        UserChangePosition(try await database.lastUserChange())
    }

    func changes(after position: UserChangePosition) async throws -> (changes: [UserChange], through: UserChangePosition) {
        while true {
            let (changes, through) = try await database.userChanges(after: position.sequence, limit: Self.batchSize)
            if through > position.sequence { return (changes, UserChangePosition(through)) }
            try await Task.sleep(for: pollInterval)
        }
    }

    func passes(_ change: UserChange, _ query: UserQuery) async throws -> Bool {
        try await database.user(change.user, passes: query)
    }
}
