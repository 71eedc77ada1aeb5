import AuthCore
import Foundation
import ServerSeam
import Store

/// Accounts made from a seed file (`SeedFile`) through the admin side's own making
/// (`SeededAccounts`: ids pinned, passwords hashed as they are made, authenticator keys and
/// provider links kept) and tagged as the file says; audited `test.seeded`. An entry whose address
/// or id already has an account is kept as it is, so `serve --seed` starts again on the same
/// file; a refused entry undoes the accounts this run made, so a file is made all or none.
public struct TestSeed: Sendable {
    let backend: any AuthAPI
    let database: AppDatabase
    let audit: AuditTrail
    let clock: @Sendable () -> Date

    init(env: Accounts) {
        (backend, database, audit, clock) = (env.backend, env.database, env.audit, env.clock)
    }

    init(backend: any AuthAPI, database: AppDatabase, audit: AuditTrail, clock: @escaping @Sendable () -> Date) {
        (self.backend, self.database, self.audit, self.clock) = (backend, database, audit, clock)
    }

    /// What a seed came to: the accounts made, and how many entries already had one.
    public struct Outcome: Sendable {
        public let created: [UserID]
        public let kept: Int
    }

    /// Makes `file`'s accounts; `.validation` naming `users[N].field` for the first refused entry
    /// (or every problem of the file itself), nothing kept then. `actor` is the superuser (nil on
    /// the command line and at start-up), `via` the way in.
    func apply(_ file: SeedFile, actor: String?, ip: String?, via: String) async throws -> Outcome {
        let problems = file.problems()
        guard problems.isEmpty else { throw AuthError.validation(problems) }
        var (created, kept): ([UserID], Int) = ([], 0)
        do {
            for (index, entry) in file.entries.enumerated() {
                if try await exists(entry) {
                    kept += 1
                    continue
                }
                let user = try await make(entry, index: index)
                created.append(user.id)
                for tag in entry.tags ?? [] { try await database.addTag(tag, to: [user.id], at: clock()) }
            }
        } catch {
            _ = try? await backend.admin.deleteUsers(created)
            try? await database.forgetUsers(ids: created, at: clock())
            throw error
        }
        await audit.record(
            .testSeeded, actor: actor, ip: ip,
            data: ["created": .number(Double(created.count)), "kept": .number(Double(kept)), "via": .string(via)])
        return Outcome(created: created, kept: kept)
    }

    /// Whether the entry's address or id has an account already.
    private func exists(_ entry: SeedFile.Entry) async throws -> Bool {
        if try await backend.admin.user(email: entry.email) != nil { return true }
        guard let id = entry.id else { return false }
        do {
            _ = try await backend.admin.user(UserID(id))
            return true
        } catch AuthError.userNotFound {
            return false
        }
    }

    /// The entry's account; its refusal names the entry (`users[N].field`).
    private func make(_ entry: SeedFile.Entry, index: Int) async throws -> User {
        do {
            return try await backend.admin.seed(SeedFile.account(entry))
        } catch AuthError.validation(let fields) {
            throw AuthError.validation(fields.map { FieldError(field: "users[\(index)].\($0.field)", message: $0.message) })
        }
    }
}
