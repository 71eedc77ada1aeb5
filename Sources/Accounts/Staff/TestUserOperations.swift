import AuthCore
import Foundation
import HTTPServer
import ServerSeam
import Store

/// The bulk work behind the test-users page and its JSON API: the backend makes the accounts,
/// Gatehouse keeps their tags, and each operation lands in the audit log once.
public struct TestUserOperations: Sendable {
    let api: any AuthAPI
    let database: AppDatabase
    let audit: AuditTrail
    let clock: @Sendable () -> Date
    /// Who acts, for the audit log: a superuser's id, nil on the command line.
    let actor: String?
    /// Where from, for the audit log: the request's address, nil on the command line.
    let ip: String?
    /// Tells a seed's caller how many accounts exist so far.
    var progress: @Sendable (Int) -> Void = { _ in }

    init(
        api: any AuthAPI, database: AppDatabase, audit: AuditTrail, clock: @escaping @Sendable () -> Date,
        actor: String?, ip: String?
    ) {
        self.api = api
        self.database = database
        self.audit = audit
        self.clock = clock
        self.actor = actor
        self.ip = ip
    }

    /// A superuser's act from the console or an admin API.
    public init(env: Accounts, api: any AuthAPI, staff: Staff, request: Request) {
        self.init(
            api: api, database: env.database, audit: env.audit, clock: env.clock, actor: staff.superuser.id,
            ip: request.remoteAddress)
    }

    /// A superuser's act through the configured backend.
    public init(env: Accounts, staff: Staff, request: Request) {
        self.init(env: env, api: env.backend, staff: staff, request: request)
    }

    static let maximumTagLength = 64

    /// Nil when `tag` is a usable tag (1 to 64 characters, no spaces or semicolons), else why not.
    public static func tagProblem(_ tag: String) -> String? {
        if tag.isEmpty || tag.count > maximumTagLength { return "Use a tag of 1 to \(maximumTagLength) characters." }
        if tag.contains(where: { $0.isWhitespace || $0 == ";" }) { return "A tag cannot contain spaces or semicolons." }
        return nil
    }

    public struct Outcome {
        public var ids: [UserID]
        public var seconds: Double

        public var duration: String { String(format: "%.1f s", seconds) }
    }

    /// Seeds the batch and tags it; `tag` is checked first (field `tag`). `via` names the way in
    /// (console, admin API, command line) in the audit row.
    public func seed(_ seed: UserSeed, tag: String?, via: String) async throws -> Outcome {
        var problems = seed.problems
        if let tag, let problem = Self.tagProblem(tag) { problems.append(FieldError(field: "tag", message: problem)) }
        guard problems.isEmpty else { throw AuthError.validation(problems) }
        return try await timed {
            let ids = try await api.admin.seedUsers(seed, progress: progress)
            if let tag { try await database.addTag(tag, to: ids, at: clock()) }
            await audit.record(
                .adminUsersSeeded, actor: actor, ip: ip,
                data: [
                    "count": .number(Double(ids.count)), "pattern": .string(seed.pattern),
                    "tag": tag.map(JSONValue.string) ?? .null,
                    "verified": .bool(seed.verified), "via": .string(via)
                ])
            return ids
        }
    }

    /// Imports every row or none: problems found while reading, in the rows themselves or by the
    /// backend → `ImportRejected` naming each bad row.
    public func importFile(_ file: UserImportFile, via: String) async throws -> Outcome {
        var problems = file.problems + (try await api.admin.importProblems(file.users))
        for row in file.rows {
            problems += row.tags.compactMap(Self.tagProblem).map { ImportProblem(row: row.user.row, message: "Tag: \($0)") }
        }
        guard problems.isEmpty else { throw ImportRejected(problems.sorted { $0.row < $1.row }) }
        return try await timed {
            let ids = try await api.admin.importUsers(file.users)
            var byTag: [String: [UserID]] = [:]
            for (row, id) in zip(file.rows, ids) {
                for tag in row.tags { byTag[tag, default: []].append(id) }
            }
            for (tag, tagged) in byTag { try await database.addTag(tag, to: tagged, at: clock()) }
            await audit.record(
                .adminUsersImported, actor: actor, ip: ip,
                data: [
                    "count": .number(Double(ids.count)), "via": .string(via),
                    "hashes": .number(Double(file.users.filter { $0.passwordHash != nil }.count))
                ])
            return ids
        }
    }

    /// Whether any account carries `tag`.
    public func isInUse(_ tag: String) async throws -> Bool {
        try await !database.userIDs(taggedWith: tag).isEmpty
    }

    /// Deletes every account tagged `tag`, ends their sessions and forgets their tags.
    public func deleteTagged(_ tag: String) async throws -> Outcome {
        try await timed {
            let ids = try await database.userIDs(taggedWith: tag)
            _ = try await delete(ids, audit: ["tag": .string(tag)])
            return ids
        }
    }

    /// Deletes these accounts, ends their sessions and forgets their tags; returns how many existed.
    public func delete(_ ids: [UserID], audit data: [String: JSONValue] = [:]) async throws -> Int {
        let count = try await api.admin.deleteUsers(ids)
        try await database.forgetUsers(ids: ids, at: clock())
        await audit.record(
            .adminUsersBulkDeleted, actor: actor, ip: ip,
            data: data.merging(["count": .number(Double(count))]) { $1 })
        return count
    }

    /// Creates one account (a generated password when `password` is empty) and tags it; `auditData`
    /// goes into the audit row beside `via`.
    public func createOne(
        email: String, password: String?, name: String?, verified: Bool, tag: String?,
        via: String, auditData: [String: JSONValue] = [:]
    ) async throws -> (user: User, generatedPassword: String?) {
        if let tag, let problem = Self.tagProblem(tag) {
            throw AuthError.validation([FieldError(field: "tag", message: problem)])
        }
        let generated = password == nil ? GeneratedPassword.make() : nil
        let profile = Profile(name.map { ["name": .string($0)] } ?? [:])
        let user = try await api.admin.createUser(
            NewUser(
                email: email, password: password ?? generated ?? "",
                verified: verified, profile: profile))
        if let tag { try await database.addTag(tag, to: [user.id], at: clock()) }
        await audit.record(
            .adminUserCreated, actor: actor, subject: user.id.rawValue, ip: ip,
            data: auditData.merging(["via": .string(via)]) { $1 })
        return (user, generated)
    }

    private func timed(_ work: () async throws -> [UserID]) async throws -> Outcome {
        let clock = ContinuousClock()
        let start = clock.now
        let ids = try await work()
        let elapsed = clock.now - start
        return Outcome(ids: ids, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}

/// Passwords the console makes up for new accounts: 20 characters that are easy to read aloud
/// (no 0/O, 1/l/I), about 115 bits.
enum GeneratedPassword {
    static let alphabet = Array("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")

    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<20).map { _ in alphabet.randomElement(using: &generator) ?? "x" })
    }
}
