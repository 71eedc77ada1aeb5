import ArgumentParser
import AuthCore
import Foundation
import PasswordStrength
import Secrets
import Store

/// `gatehouse superuser create EMAIL` adds a staff account for the console; `delete EMAIL` takes it away.
struct SuperuserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "superuser",
        abstract: "Manage superusers, the staff accounts that sign in to the console at /_/.",
        subcommands: [Create.self, Delete.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a superuser (the password is prompted for, or read from standard input).")

        @Argument(help: "The superuser's email address.")
        var email: String

        @Flag(help: "Read the password from standard input (one line) instead of prompting.")
        var passwordStdin = false

        @Flag(help: "If the superuser exists, set this password instead of failing.")
        var force = false

        @Option(help: "SQLite file. (GATEHOUSE_DB)")
        var db: String = Environment.value("DB") ?? "gatehouse.sqlite"

        func validate() throws {
            guard EmailAddress.isPlausible(email) else { throw ValidationError("'\(email)' is not an email address.") }
        }

        func run() async throws {
            let password = try readPassword()
            if let problem = PasswordRules.default.problem(with: password, userInputs: [email]) {
                throw ValidationError("Password: \(problem)")
            }
            let database = try AppDatabase(path: db)
            let hash = try await PasswordHasher().hash(password)
            let email = self.email.trimmingCharacters(in: .whitespacesAndNewlines)
            do {
                _ = try await database.createSuperuser(id: SecureRandom.userID(), email: email, passwordHash: hash, at: Date())
                print("Created superuser \(email). Sign in at /_/.")
            } catch AuthError.emailExists {
                guard force else {
                    throw ValidationError(
                        "A superuser with the email \(email) already exists (use --force to set a new password).")
                }
                _ = try await database.setSuperuserPassword(email: email, passwordHash: hash, at: Date())
                print("Updated the password of superuser \(email).")
            }
        }

        private func readPassword() throws -> String {
            if passwordStdin {
                guard let line = readLine(strippingNewline: true) else { throw ValidationError("No password on standard input.") }
                return line
            }
            let first = try Terminal.readSecret(prompt: "Password: ")
            let second = try Terminal.readSecret(prompt: "Repeat password: ")
            guard first == second else { throw ValidationError("The passwords do not match.") }
            return first
        }
    }
}

extension SuperuserCommand {
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a superuser: every console, admin-API and PocketBase superuser session of theirs ends.")

        @Argument(help: "The superuser's email address.")
        var email: String

        @Option(help: "SQLite file. (GATEHOUSE_DB)")
        var db: String = Environment.value("DB") ?? "gatehouse.sqlite"

        func run() async throws {
            let email = self.email.trimmingCharacters(in: .whitespacesAndNewlines)
            guard try await AppDatabase(path: db).deleteSuperuser(email: email) else {
                throw ValidationError("No superuser has the email \(email).")
            }
            print("Deleted superuser \(email); their sessions have ended.")
        }
    }
}

/// Reads a line from the terminal without echoing it.
enum Terminal {
    static func readSecret(prompt: String) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            throw ValidationError("No terminal to prompt on; pass --password-stdin and pipe the password in.")
        }
        FileHandle.standardError.write(Data(prompt.utf8))
        var original = termios()
        tcgetattr(STDIN_FILENO, &original)
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true) ?? ""
    }
}
