import ArgumentParser

/// `gatehouse`: a local auth server and dashboard in one binary with one SQLite file.
@main
struct Gatehouse: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatehouse",
        abstract: "A local auth server: hosted account pages, a dev mailbox, and PocketBase/InsForge-compatible APIs.",
        subcommands: [
            Serve.self, SuperuserCommand.self, UsersCommand.self, ResetCommand.self, DescopeCommand.self, SeedCommand.self
        ],
        defaultSubcommand: Serve.self)
}
