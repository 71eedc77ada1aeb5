import AuthCore
import Foundation
import PasswordStrength
import Secrets
import ServerSeam
import Store

/// Administration of the embedded accounts. It trusts its in-process caller (the console checks
/// who is a superuser); impersonation sessions name the admin API as their impersonator.
struct LocalAdminAPI: AuthAdminAPI, UserChangeSource, TestUserAdministration, TaggedUserLists, AccountsByAddress {
    let api: LocalBackend
    var accounts: LocalAccounts { api.accounts }

    func listUsers(_ query: UserQuery) async throws -> UserPage {
        try await accounts.database.listUsers(query)
    }

    func listUsers(_ query: UserQuery, taggedWith tag: String) async throws -> UserPage {
        try await accounts.database.listUsers(query, taggedWith: tag)
    }

    func user(_ id: UserID) async throws -> User {
        try await accounts.user(id)
    }

    func exactUser(email: String) async throws -> User? {
        try await accounts.database.user(email: email)?.user
    }

    func createUser(_ new: NewUser) async throws -> User {
        var problems = accounts.signUpProblems(SignUpRequest(email: new.email, password: new.password), name: nil)
        problems += ProfileRules.problems(inPatch: new.profile.fields) + ProfileRules.problems(inMerged: new.profile)
        guard problems.isEmpty else { throw AuthError.validation(problems) }
        let hash = try await accounts.hasher.hash(new.password)
        let now = accounts.clock()
        let record = UserRecord(
            id: UserID(SecureRandom.userID()), email: new.email, passwordHash: hash,
            verified: new.verified, profile: new.profile, createdAt: now, updatedAt: now)
        let user = try await accounts.database.insertUser(record, verificationToken: nil)
        accounts.logger.info("account created by admin", metadata: ["user": "\(user.id)"])
        return user.user
    }

    func updateUser(_ id: UserID, _ update: UserUpdate) async throws -> User {
        var problems: [FieldError] = []
        if let email = update.email, !EmailAddress.isPlausible(email) {
            problems.append(FieldError(field: "email", message: "Enter a valid email address."))
        }
        if let password = update.password {
            // The account's address, the new one when it changes too, and its name count as guessable.
            let current = try await accounts.database.user(id: id)
            let known = PasswordRules.userInputs(
                emails: [current?.email, update.email].compactMap { $0 }, name: current?.profile.name)
            if let message = accounts.configuration.passwordRules.problem(with: password, userInputs: known) {
                problems.append(FieldError(field: "password", message: message))
            }
        }
        let patch = update.profilePatch ?? [:]
        problems += ProfileRules.problems(inPatch: patch)
        guard problems.isEmpty else { throw AuthError.validation(problems) }
        let hash: String? = if let password = update.password { try await accounts.hasher.hash(password) } else { nil }
        let now = accounts.clock()
        let record = try await accounts.database.updateUser(id: id) { user in
            if let email = update.email {
                user.email = email.trimmingCharacters(in: .whitespacesAndNewlines)
                user.emailNormalized = EmailAddress.normalize(email)
            }
            if let hash { user.passwordHash = hash }
            if let verified = update.verified { user.verified = verified }
            if let disabled = update.disabled { user.disabled = disabled }
            if !patch.isEmpty {
                user.profile = user.profile.merging(patch)
                let merged = ProfileRules.problems(inMerged: user.profile)
                guard merged.isEmpty else { throw AuthError.validation(merged) }
            }
            user.updatedAt = now
        }
        // New credentials or a disabled account: every existing session ends at once.
        if hash != nil || update.email != nil || update.disabled == true {
            try await accounts.database.revokeSessions(userID: id, at: now)
        }
        accounts.logger.info("account updated by admin", metadata: ["user": "\(id)"])
        return record.user
    }

    func deleteUser(_ id: UserID) async throws {
        try await accounts.database.deleteUser(id: id, at: accounts.clock())
        accounts.logger.notice("account deleted by admin", metadata: ["user": "\(id)"])
    }

    func impersonate(_ id: UserID, duration: TimeInterval, actor: String) async throws -> AuthSession {
        let user = try await accounts.user(id)
        let session = try await api.openSession(for: user, impersonator: actor, lifetime: Impersonation.clamp(duration))
        accounts.logger.notice("impersonation session opened", metadata: ["subject": "\(id)", "actor": "\(actor)"])
        return session
    }

    func openSession(for id: UserID) async throws -> AuthSession {
        let user = try await accounts.user(id)
        guard !user.disabled else { throw AuthError.invalidCredentials }
        return try await api.openSession(for: user)
    }

    func linkExternalAuth(userID: UserID, provider: String, providerID: String) async throws -> ExternalAuth {
        do {
            return try await accounts.database.linkExternal(
                ExternalIdentity(provider: provider, subject: providerID, email: nil, emailVerified: false),
                to: userID, at: accounts.clock())
        } catch ExternalAuthError.alreadyLinked {
            throw AuthError.validation([FieldError(field: "providerId", message: "This identity is already linked.")])
        }
    }

    func externalAuth(id: String) async throws -> ExternalAuth? {
        try await accounts.database.externalAuth(id: id)
    }

    func externalAuths(of userID: UserID) async throws -> [ExternalAuth] {
        try await accounts.database.externalAuths(userID: userID)
    }

    func externalAuths(of userIDs: [UserID]) async throws -> [UserID: [ExternalAuth]] {
        try await accounts.database.externalAuths(userIDs: userIDs)
    }

    func unlinkExternalAuth(of userID: UserID, provider: String) async throws {
        try await accounts.database.unlinkExternal(provider: provider, from: userID)
        accounts.logger.info("external auth unlinked by admin", metadata: ["user": "\(userID)", "provider": "\(provider)"])
    }

    func seed(_ seed: UserSeed, progress: @escaping @Sendable (Int) -> Void) async throws -> [UserID] {
        let problems = seed.problems
        guard problems.isEmpty else { throw AuthError.validation(problems) }
        // One argon2id hash for the whole batch: hashing 10,000 passwords would take minutes.
        let hash = try await accounts.hasher.hash(seed.password)
        let now = accounts.clock()
        // In ascending order, so each index on the id (the key, creation order, the search keys) is
        // written at its end instead of at random: about a quarter less SQLite work per row. Sorting
        // keeps each id as unguessable as drawn (a million of them still leave ~2^57 between two).
        let newIDs = SecureRandom.userIDs(seed.count).sorted()
        let email = seed.addressMaker
        let ids: [UserID]
        do {
            ids = try await accounts.database.insertUsers(
                count: seed.count,
                record: { n in
                    UserRecord(
                        id: UserID(newIDs[n - 1]), email: email(n), passwordHash: hash,
                        verified: seed.verified, profile: Profile(), createdAt: now, updatedAt: now)
                }, progress: progress)
        } catch StoreError.emailsTaken(let taken) {
            throw AuthError.validation([FieldError(field: "pattern", message: Self.takenMessage(taken))])
        }
        accounts.logger.info("accounts seeded by admin", metadata: ["count": "\(ids.count)"])
        return ids
    }

    func changeFeed() throws -> any UserChangeFeed {
        LocalUserChanges(database: accounts.database)
    }

    func deleteEveryUser() async throws -> Int {
        let count = try await accounts.database.deleteAllUsers(at: accounts.clock())
        accounts.logger.notice("every account deleted by admin", metadata: ["count": "\(count)"])
        return count
    }

    func problems(importing rows: [ImportedUser]) async throws -> [ImportProblem] {
        var problems = ImportedUser.problems(in: rows)
        for row in rows where row.passwordHash.map(ImportedUser.isAcceptedHash) == true {
            do throws(StoredPasswordHash.Refusal) {
                _ = try StoredPasswordHash.parse(row.passwordHash ?? "")
            } catch {
                problems.append(ImportProblem(row: row.row, message: error.message))
            }
        }
        for row in rows {
            let fields = ProfileRules.problems(inPatch: row.profile.fields) + ProfileRules.problems(inMerged: row.profile)
            problems += fields.map { ImportProblem(row: row.row, message: "\($0.field): \($0.message)") }
        }
        // Taken addresses are looked up even when other rows are bad, so one answer names every bad row.
        let taken = Set(
            try await accounts.database.takenEmails(among: rows.map { EmailAddress.normalize($0.email) })
                .map(EmailAddress.normalize))
        problems += rows.filter { taken.contains(EmailAddress.normalize($0.email)) }
            .map { ImportProblem(row: $0.row, message: "\($0.email) already has an account.") }
        return problems.sorted { $0.row < $1.row }
    }

    func importAll(_ rows: [ImportedUser]) async throws -> [UserID] {
        let problems = try await self.problems(importing: rows)
        guard problems.isEmpty else { throw ImportRejected(problems) }
        // Rows sharing a plain password share its hash, so a file of test users imports in
        // seconds (each argon2id hash costs ~80 ms).
        var hashes: [String: String] = [:]
        for password in Set(rows.compactMap(\.password)) {
            hashes[password] = try await accounts.hasher.hash(password)
        }
        let now = accounts.clock()
        let records = rows.map { row in
            UserRecord(
                id: UserID(SecureRandom.userID()), email: row.email,
                passwordHash: row.passwordHash ?? row.password.flatMap { hashes[$0] },
                verified: row.verified, profile: row.profile, createdAt: now, updatedAt: now)
        }
        do {
            _ = try await accounts.database.insertUsers(count: records.count, record: { records[$0 - 1] })
        } catch StoreError.emailsTaken(let taken) {
            let takenSet = Set(taken.map(EmailAddress.normalize))
            throw ImportRejected(
                rows.filter { takenSet.contains(EmailAddress.normalize($0.email)) }
                    .map { ImportProblem(row: $0.row, message: "\($0.email) already has an account.") })
        }
        accounts.logger.info("accounts imported by admin", metadata: ["count": "\(records.count)"])
        return records.map(\.id)
    }

    func deleteUsers(_ ids: [UserID]) async throws -> Int {
        let count = try await accounts.database.deleteUsers(ids: ids, at: accounts.clock())
        accounts.logger.notice("accounts deleted by admin", metadata: ["count": "\(count)"])
        return count
    }

    static func takenMessage(_ taken: [String]) -> String {
        let examples = taken.prefix(3).joined(separator: ", ")
        return taken.count == 1
            ? "\(examples) already has an account; nothing was created."
            : "\(taken.count) of these addresses already have accounts (\(examples)\(taken.count > 3 ? ", …" : "")); nothing was created."
    }
}
