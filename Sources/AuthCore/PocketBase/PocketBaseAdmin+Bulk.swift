import Foundation

/// Bulk administration on PocketBase: one record request per account (its batch API is off by
/// default), so these are slower than the embedded backend's and only all-or-nothing by undoing
/// what was created when a later create fails.
extension PocketBaseAdmin {
    func seedUsers(_ seed: UserSeed) async throws -> [UserID] {
        let problems = seed.problems
        guard problems.isEmpty else { throw AuthError.validation(problems) }
        return try await createAll(seed.emails.map { NewUser(email: $0, password: seed.password, verified: seed.verified) }) {
            email in
            AuthError.validation([FieldError(field: "pattern", message: "\(email) already has an account; nothing was created.")])
        }
    }

    /// PocketBase cannot take a password hash through its API, so rows with one are refused; rows
    /// with neither get a random password nobody knows. Addresses already taken are found only
    /// while creating (one lookup per row would double the requests), so they are not among these.
    func importProblems(_ rows: [ImportedUser]) async throws -> [ImportProblem] {
        let hashes = rows.filter { $0.passwordHash != nil }.map {
            ImportProblem(row: $0.row, message: "PocketBase cannot import password hashes; give a plain password instead.")
        }
        return (ImportedUser.problems(in: rows) + hashes).sorted { $0.row < $1.row }
    }

    func importUsers(_ rows: [ImportedUser]) async throws -> [UserID] {
        let problems = try await importProblems(rows)
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

    func deleteUsers(_ ids: [UserID]) async throws -> Int {
        var deleted = 0
        for id in ids {
            do {
                try await deleteUser(id)
                deleted += 1
            } catch AuthError.userNotFound {
                continue
            }
        }
        return deleted
    }

    /// Creates each account in turn; when one fails, deletes those already made and throws (an
    /// address in use becomes `taken(email)`).
    private func createAll(_ users: [NewUser], taken: (String) -> any Error) async throws -> [UserID] {
        var created: [UserID] = []
        do {
            for user in users { created.append(try await createUser(user).id) }
            return created
        } catch {
            for id in created { try? await deleteUser(id) }
            backend.logger.warning("bulk create on PocketBase undone", metadata: ["created": "\(created.count)"])
            if case AuthError.emailExists = error, created.count < users.count { throw taken(users[created.count].email) }
            throw error
        }
    }

    private static func unusablePassword() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(generator.next() as UInt64, radix: 36) }.joined()
    }
}
