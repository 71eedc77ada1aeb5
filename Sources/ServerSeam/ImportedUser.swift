import AuthCore
import Foundation

/// One account from an import file: a plain password to hash, or a hash kept as it is (bcrypt from
/// PocketBase, argon2id from Gatehouse), or neither (the account cannot sign in with a password).
public struct ImportedUser: Sendable, Hashable {
    /// Where the row came from (the file's row number), for error messages.
    public var row: Int
    public var email: String
    public var verified: Bool
    public var password: String?
    public var passwordHash: String?
    public var profile: Profile

    public init(
        row: Int, email: String, verified: Bool = false, password: String? = nil, passwordHash: String? = nil,
        profile: Profile = Profile()
    ) {
        self.row = row
        self.email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        self.verified = verified
        self.password = password.flatMap { $0.isEmpty ? nil : $0 }
        self.passwordHash = passwordHash.flatMap { $0.isEmpty ? nil : $0 }
        self.profile = profile
    }

    /// Hash formats accepted as they are: bcrypt (`$2a$`, `$2b$`, `$2y$`) and argon2id.
    public static func isAcceptedHash(_ hash: String) -> Bool {
        ["$2a$", "$2b$", "$2y$", "$argon2id$"].contains { hash.hasPrefix($0) }
    }

    /// What is wrong with this row on its own; duplicates and taken addresses need the whole file.
    public var problems: [String] {
        var problems: [String] = []
        if !EmailAddress.isPlausible(email) { problems.append("“\(email)” is not a valid email address.") }
        if password != nil && passwordHash != nil {
            problems.append("Give a password or a password hash, not both.")
        }
        if let password, let message = PasswordPolicy.problem(with: password) {
            problems.append("Password: \(message)")
        }
        if let passwordHash, !Self.isAcceptedHash(passwordHash) {
            problems.append("The password hash is not bcrypt ($2a$, $2b$, $2y$) or argon2id.")
        }
        return problems
    }

    /// Problems of every row of a batch, including addresses that appear twice; empty means the
    /// batch may be written.
    public static func problems(in rows: [ImportedUser]) -> [ImportProblem] {
        var problems: [ImportProblem] = []
        var firstRow: [String: Int] = [:]
        for row in rows {
            var messages = row.problems
            let key = EmailAddress.normalize(row.email)
            if let first = firstRow[key] {
                messages.append("\(row.email) is already in row \(first).")
            } else {
                firstRow[key] = row.row
            }
            problems += messages.map { ImportProblem(row: row.row, message: $0) }
        }
        return problems
    }
}

/// One problem with one row of an import.
public struct ImportProblem: Sendable, Hashable, Codable {
    public var row: Int
    public var message: String

    public init(row: Int, message: String) {
        self.row = row
        self.message = message
    }
}

/// An import refused as a whole: every bad row is named and nothing was written.
public struct ImportRejected: Error, Sendable, Equatable {
    public var problems: [ImportProblem]

    public init(_ problems: [ImportProblem]) { self.problems = problems }
}
