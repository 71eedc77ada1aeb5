import AuthCore
import Foundation
import Logging
import ServerSeam
import Store

/// The console's test-data acts for `gatehouse users …` and `gatehouse reset`: the same operations
/// (`TestUserOperations`, `UserImportFile`, `UserExport`) with the same rules and audit events, acted
/// by the command line (no superuser, no address) instead of a signed-in member of staff.
public struct CommandLineTestData: Sendable {
    /// A refusal worded for the terminal: every problem, one per line.
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) { self.description = description }
    }

    let api: any AuthAPI
    let database: AppDatabase
    let audit: AuditTrail
    let clock: @Sendable () -> Date

    public init(backend: any AuthAPI, database: AppDatabase, logger: Logger, clock: @escaping @Sendable () -> Date) {
        api = backend
        self.database = database
        self.clock = clock
        audit = AuditTrail(database: database, clock: clock, logger: logger)
    }

    private func operations(progress: @escaping @Sendable (Int) -> Void = { _ in }) throws -> TestUserOperations {
        guard api.capabilities.contains(.userAdministration) else {
            throw Refusal(description: "This backend does not support user administration.")
        }
        var operations = TestUserOperations(api: api, database: database, audit: audit, clock: clock, actor: nil, ip: nil)
        operations.progress = progress
        return operations
    }

    /// Seeds `count` accounts from `pattern` sharing `password`; returns how many and how long it took.
    public func seed(
        count: Int, pattern: String, password: String, verified: Bool, tag: String?,
        progress: @escaping @Sendable (Int) -> Void
    ) async throws -> (created: Int, seconds: Double) {
        do {
            let outcome = try await operations(progress: progress).seed(
                UserSeed(count: count, pattern: pattern, password: password, verified: verified), tag: tag, via: "cli")
            return (outcome.ids.count, outcome.seconds)
        } catch AuthError.validation(let fields) {
            throw Refusal(description: fields.map { "\($0.field): \($0.message)" }.joined(separator: "\n"))
        }
    }

    /// Imports a CSV or JSON file (the console's format, guessed from the name and content), every
    /// row or none.
    public func importFile(bytes: [UInt8], filename: String) async throws -> (created: Int, seconds: Double) {
        let file: UserImportFile
        do {
            file = try UserImportFile(bytes: bytes, filename: filename, format: nil)
        } catch {
            throw Refusal(description: error.message)
        }
        do {
            let outcome = try await operations().importFile(file, via: "cli")
            return (outcome.ids.count, outcome.seconds)
        } catch let rejected as ImportRejected {
            let rows = Set(rejected.problems.map(\.row)).count
            let lines = rejected.problems.map { "row \($0.row): \($0.message)" }
            throw Refusal(
                description: (["Nothing was imported: \(rows) \(rows == 1 ? "row has" : "rows have") problems."] + lines)
                    .joined(separator: "\n"))
        }
    }

    /// Every user (or every user tagged `tag`) as the console's JSON or CSV download;
    /// `progress` hears (written, in all) after each page.
    public func export(
        csv: Bool, tag: String?, progress: (_ done: Int, _ total: Int) -> Void
    ) async throws -> [UInt8] {
        _ = try operations()
        return try await UserExport(database: database, api: api).file(format: csv ? .csv : .json, tag: tag, progress: progress)
    }

    /// What a reset removed.
    public struct ResetSummary: Sendable {
        public var users: Int
        public var rows: [String: Int]
    }

    /// Deletes every account (through the backend) and Gatehouse's record of activity — sessions,
    /// mail, audit, throttles, tags, flows in progress — keeping superusers, providers and apps.
    /// The emptied audit log then holds one event: this reset.
    public func reset() async throws -> ResetSummary {
        let users = try await operations().api.admin.deleteAllUsers()
        let rows = try await database.wipeActivity()
        await audit.record(.adminDataReset, ip: nil, data: ["users": .number(Double(users)), "via": .string("cli")])
        return ResetSummary(users: users, rows: rows)
    }
}
