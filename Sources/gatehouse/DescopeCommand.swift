import Accounts
import ArgumentParser
import AuthCore
import Foundation

/// `gatehouse descope management-key create`: a key for Descope's management API (test users),
/// printed once, alone on the last line, like a secret shown once; only its keyed hash is kept.
struct DescopeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "descope",
        abstract: "Manage what the Descope-compatible API needs outside the console.",
        subcommands: [KeyCommands.self])

    struct KeyCommands: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "management-key",
            abstract: "Management keys for Descope's management API (Bearer <projectId>:<managementKey>).",
            subcommands: [Create.self])
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a management key; it is printed once, alone on the last line.")

        @Option(help: "A name to tell the key by in the console and the audit log.")
        var name = "command line"

        @OptionGroup var file: TestDataOptions

        func run() async throws {
            let (database, keyedHash, logger) = try file.opened()
            let keys = ManagementKeys(database: database, hasher: keyedHash, clock: { Date() }, logger: logger)
            do {
                let created = try await keys.create(name: name, actor: nil, ip: nil, via: "cli")
                print("Created management key \(created.key.id) (\(created.key.name)). It is shown only now:")
                print(created.secret)
            } catch AuthError.validation(let fields) {
                throw ValidationError(fields.map(\.message).joined(separator: " "))
            }
        }
    }
}
