import Accounts
import ArgumentParser
import AuthCore
import Foundation
import GatehouseWeb
import ServerSeam

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `gatehouse users seed|import|export`: the console's test-user tools on the command line, for
/// scripts and emulator-style workflows (the embedded backend, straight on the SQLite file).
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Seed, import and export test users (the console's Test users page, on the command line).",
        subcommands: [Seed.self, Import.self, Export.self])

    struct Seed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create COUNT users from a pattern, all sharing one password (all or none).",
            discussion: """
                Addresses come from --pattern with {n} replaced by 1…COUNT. Up to 1,000,000 users in \
                one transaction (one password hash shared by all). Shows a progress bar on a terminal. \
                Example: gatehouse users seed 1000 --tag demo
                """)

        @Argument(help: "How many users to create (1 to 1,000,000).")
        var count: Int

        @Option(help: "Email pattern; {n} becomes the number.")
        var pattern = "test+{n}@example.com"

        @Option(help: "The password every seeded user signs in with.")
        var password = "password123"

        @Flag(help: "Mark the addresses as verified.")
        var verified = false

        @Option(help: "Tag the batch, to find or delete it later in the console.")
        var tag: String?

        @OptionGroup var options: TestDataOptions

        func run() async throws {
            let progress = ProgressReport("Seeding", total: count)
            let outcome: (created: Int, seconds: Double)
            do {
                outcome = try await options.testData().seed(
                    count: count, pattern: pattern, password: password, verified: verified, tag: tag,
                    progress: { progress.update($0) })
            } catch let refusal as CommandLineTestData.Refusal {
                progress.finish()
                throw CommandLineTestData.Refusal(description: "Nothing was created.\n\(refusal)")
            }
            progress.finish()
            print("Created \(CountText.grouped(outcome.created)) users in \(String(format: "%.1f", outcome.seconds)) s.")
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import users from a CSV or JSON file (every row or none).",
            discussion: """
                CSV: a header row with an email column, and optionally password, name, verified, \
                passwordHash (argon2id or bcrypt) and tags. JSON: an array of user objects, or an object \
                with an items array (Gatehouse's export, PocketBase's list). Problems are listed by row.
                """)

        @Argument(help: "The file to read; - reads standard input (as JSON or CSV by its content).")
        var file: String

        @OptionGroup var options: TestDataOptions

        func run() async throws {
            let bytes: [UInt8]
            if file == "-" {
                bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
            } else {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw ValidationError("Cannot read \(file).")
                }
                bytes = Array(data)
            }
            let outcome = try await options.testData().importFile(bytes: bytes, filename: file == "-" ? "" : file)
            print("Imported \(CountText.grouped(outcome.created)) users in \(String(format: "%.1f", outcome.seconds)) s.")
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export users as JSON or CSV (no password hashes), to a file or standard output.",
            discussion: "The file reads back with `gatehouse users import` (give the users a password column first).")

        @Argument(help: "Where to write; standard output when left out or -.")
        var file: String?

        @Option(help: "json or csv; guessed from the file's name when left out, else json.")
        var format: String?

        @Option(help: "Only users with this tag.")
        var tag: String?

        @OptionGroup var options: TestDataOptions

        func validate() throws {
            if let format, !["json", "csv"].contains(format) { throw ValidationError("--format is json or csv.") }
        }

        func run() async throws {
            let target = file == "-" ? nil : file
            let csv = format == "csv" || (format == nil && target?.lowercased().hasSuffix(".csv") == true)
            // The bar goes to standard error, so it never mixes into an export on standard output.
            let progress = ProgressReport("Exporting", total: 1)
            let bytes = try await options.testData().export(csv: csv, tag: tag) { progress.update($0, total: $1) }
            progress.finish()
            if let target {
                try Self.writeOwnerOnly(bytes, to: target)
                FileHandle.standardError.write(Data("Wrote \(target).\n".utf8))
            } else {
                FileHandle.standardOutput.write(Data(bytes))
            }
        }

        /// Writes `bytes` to `path` readable by the owner only (an export lists every user, like the
        /// database): created 0600, and an existing file narrowed to 0600 before it is truncated.
        static func writeOwnerOnly(_ bytes: [UInt8], to path: String) throws {
            let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0, fchmod(fd, 0o600) == 0, ftruncate(fd, 0) == 0 else {
                if fd >= 0 { close(fd) }
                throw ValidationError("Cannot write \(path): \(String(cString: strerror(errno))).")
            }
            let file = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            try file.write(contentsOf: bytes)
            try file.close()
        }
    }
}

/// `gatehouse reset --yes`: back to an empty project that keeps its configuration.
struct ResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Delete every user, session, mail and audit event; keep superusers, providers and apps.",
        discussion: """
            Also clears tags, sign-in throttles and sign-in flows in progress. It cannot be undone, so \
            it asks for --yes. A server running on the same file goes on \
            serving: it reads the same file.
            """)

    @Flag(help: "Confirm: really delete the data.")
    var yes = false

    @OptionGroup var options: TestDataOptions

    func run() async throws {
        guard yes else {
            throw CommandLineTestData.Refusal(
                description:
                    "reset deletes every user, session, mail and audit event in \(options.db) and cannot be undone; run it again with --yes to go ahead."
            )
        }
        let summary = try await options.testData().reset()
        let sessions = summary.rows["sessions"] ?? 0
        let mails = summary.rows["mails"] ?? 0
        let events = summary.rows["audit_events"] ?? 0
        print(
            "Deleted \(CountText.grouped(summary.users)) users, \(CountText.grouped(sessions)) sessions, \(CountText.grouped(mails)) mails and \(CountText.grouped(events)) audit events. Superusers, providers and apps are kept."
        )
    }
}
