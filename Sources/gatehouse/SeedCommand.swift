import Accounts
import ArgumentParser
import Foundation

/// `gatehouse seed FILE`: the accounts a test run starts with, from a JSON seed file (README,
/// "Test controls"), made through the same owner as `serve --seed`.
struct SeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract:
            "Create the accounts of a JSON seed file: pinned ids, passwords, verified state, authenticator keys, provider links, tags.",
        discussion: """
            Accounts whose address or id already exists are kept as they are; a refused entry leaves \
            nothing of the run behind. Example: gatehouse seed accounts.json --db gatehouse.sqlite
            """)

    @Argument(help: "The seed file: {\"users\": [{\"email\": …, \"password\": …}, …]}.")
    var file: String

    @OptionGroup var options: TestDataOptions

    func run() async throws {
        let outcome = try await options.testData().seed(file: file, via: "cli")
        print("Seeded \(outcome.created.count) accounts; \(outcome.kept) were there already.")
    }
}
