import AuthCore
import Foundation
import Logging

/// Test users on an admin side without bulk work of its own, through its `createUser` and `deleteUser`.
/// On PocketBase that is one record request per account (its batch API is off by
/// default), so these are slower than the embedded backend's and only all-or-nothing by undoing
/// what was created when a later create fails. An admin side that cannot create accounts (InsForge)
/// refuses the first create, and so the whole batch, as it refuses one.
struct RecordByRecordTestUsers: TestUserAdministration {
    let admin: any AuthAdminAPI
    var logger = Logger(label: "gatehouse.test-users")

    /// Tells `progress` once, at the end.
    func seed(_ seed: UserSeed, progress: @escaping @Sendable (Int) -> Void) async throws -> [UserID] {
        let problems = seed.problems
        guard problems.isEmpty else { throw AuthError.validation(problems) }
        let ids = try await createAll(seed.emails.map { NewUser(email: $0, password: seed.password, verified: seed.verified) }) {
            email in
            AuthError.validation([FieldError(field: "pattern", message: "\(email) already has an account; nothing was created.")])
        }
        progress(ids.count)
        return ids
    }

    /// `NewUser` carries no password hash (PocketBase cannot take one through its API), so rows with one are refused; rows
    /// with neither get a random password nobody knows. Addresses already taken are found only
    /// while creating (one lookup per row would double the requests), so they are not among these.
    func problems(importing rows: [ImportedUser]) async throws -> [ImportProblem] {
        let hashes = rows.filter { $0.passwordHash != nil }.map {
            ImportProblem(row: $0.row, message: "This backend cannot import password hashes; give a plain password instead.")
        }
        return (ImportedUser.problems(in: rows) + hashes).sorted { $0.row < $1.row }
    }

    func importAll(_ rows: [ImportedUser]) async throws -> [UserID] {
        let problems = try await self.problems(importing: rows)
        guard problems.isEmpty else { throw ImportRejected(problems) }
        let users = rows.map { row in
            NewUser(
                email: row.email, password: row.password ?? Self.unusablePassword(), verified: row.verified, profile: row.profile)
        }
        return try await createAll(users) { email in
            let row = rows.first { EmailAddress.normalize($0.email) == EmailAddress.normalize(email) }?.row ?? 0
            return ImportRejected([ImportProblem(row: row, message: "\(email) already has an account.")])
        }
    }

    /// Remote admin sides have no "every account" call, and listing then deleting is no reset.
    func deleteEveryUser() async throws -> Int { throw AuthError.notSupported(.userAdministration) }

    /// Creates each account in turn; when one fails, deletes those already made and throws (an
    /// address in use becomes `taken(email)`).
    private func createAll(_ users: [NewUser], taken: (String) -> any Error) async throws -> [UserID] {
        var created: [UserID] = []
        do {
            for user in users { created.append(try await admin.createUser(user).id) }
            return created
        } catch {
            for id in created { try? await admin.deleteUser(id) }
            logger.warning("bulk create undone, one account at a time", metadata: ["created": "\(created.count)"])
            if case AuthError.emailExists = error, created.count < users.count { throw taken(users[created.count].email) }
            throw error
        }
    }

    private static func unusablePassword() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(generator.next() as UInt64, radix: 36) }.joined()
    }
}
