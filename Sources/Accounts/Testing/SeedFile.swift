import AuthCore
import Foundation
import ServerSeam

/// A seed file (`gatehouse seed FILE`, `serve --seed FILE`): the accounts a test run starts
/// with, as JSON — `{"users": [{"id", "email", "password", "name", "verified", "totpSecret",
/// "providers": [{"provider", "subject", "email", "testProvider"}], "tags", "profile"}]}`, every
/// field but `email` optional. Read whole and checked before anything is made.
struct SeedFile: Sendable {
    /// One account of the file.
    public struct Entry: Sendable, Decodable {
        public var id: String?
        public var email: String
        var password: String?
        public var name: String?
        var verified: Bool?
        var totpSecret: String?
        var providers: [Link]?
        var tags: [String]?
        var profile: [String: JSONValue]?
    }

    /// A provider identity linked to the account.
    public struct Link: Sendable, Decodable {
        var provider: String
        var subject: String
        public var email: String?
        /// Made at the built-in test provider (`ExternalIdentity.fromTestProvider`).
        var testProvider: Bool?
    }

    private struct Document: Decodable { var users: [Entry] }

    /// Why a file could not be read.
    public struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    let entries: [Entry]

    /// The most accounts a seed file may hold (a bulk load goes through `gatehouse users import`).
    static let maximumEntries = 10_000

    /// Reads `json`; `Unreadable` for anything but `{"users": [...]}` with an `email` in each.
    init(json: [UInt8]) throws(Unreadable) {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: Data(json))
        } catch {
            throw Unreadable(description: "The seed file is not {\"users\": [...]} with an email in each: \(error)")
        }
        guard document.users.count <= Self.maximumEntries else {
            throw Unreadable(description: "A seed file holds at most \(Self.maximumEntries) accounts.")
        }
        entries = document.users
    }

    /// Every problem the file has on its own (the same address or id twice, a bad tag), by
    /// `users[N].field`.
    func problems() -> [FieldError] {
        var problems: [FieldError] = []
        var (emails, ids): (Set<String>, Set<String>) = ([], [])
        for (index, entry) in entries.enumerated() {
            let field = "users[\(index)]"
            if !emails.insert(EmailAddress.normalize(entry.email)).inserted {
                problems.append(FieldError(field: field + ".email", message: "\(entry.email) is in the file twice."))
            }
            if let id = entry.id, !ids.insert(id).inserted {
                problems.append(FieldError(field: field + ".id", message: "\(id) is in the file twice."))
            }
            for tag in entry.tags ?? [] {
                if let problem = TestUserOperations.tagProblem(tag) {
                    problems.append(FieldError(field: field + ".tags", message: problem))
                }
            }
            for link in entry.providers ?? [] where link.provider.isEmpty || link.subject.isEmpty {
                problems.append(FieldError(field: field + ".providers", message: "Give each link a provider and a subject."))
            }
        }
        return problems
    }

    /// The account `entry` describes, as the admin side makes it.
    static func account(_ entry: Entry) -> SeededAccount {
        var fields = entry.profile ?? [:]
        if let name = entry.name { fields["name"] = .string(name) }
        return SeededAccount(
            id: entry.id.map { UserID($0) }, email: entry.email, password: entry.password,
            verified: entry.verified ?? false, profile: Profile(fields), totpSecret: entry.totpSecret,
            providers: (entry.providers ?? []).map {
                ExternalIdentity(
                    provider: $0.provider, subject: $0.subject, email: $0.email, fromTestProvider: $0.testProvider ?? false)
            })
    }
}
