import AuthCore
import Foundation
import Secrets
import ServerSeam
import Store
import TwoFactor

extension LocalAdminAPI: SeededAccounts {
    func seed(_ account: SeededAccount) async throws -> User {
        let id = account.id ?? UserID(SecureRandom.userID())
        let secret = account.totpSecret.map { TOTPSecret(base32: $0) }
        try await requireSeedable(account, id: id, secret: secret)
        let hash = try await account.password.asyncMap { try await accounts.hasher.hash($0) }
        let now = accounts.clock()
        let record = UserRecord(
            id: id, email: account.email, passwordHash: hash, verified: account.verified, profile: account.profile,
            createdAt: now, updatedAt: now)
        let user = try await accounts.database.insertUser(record, verificationToken: nil)
        do {
            if let secret = secret ?? nil {
                _ = try await accounts.secondFactors.enableSeeded(.user(id), secret: secret)
            }
            for identity in account.providers {
                _ = try await accounts.database.linkExternal(identity, to: id, at: now)
            }
        } catch {
            // The account is whole or not there: a key or link that could not be kept takes it away.
            _ = try? await accounts.database.deleteUsers(ids: [id], at: now)
            throw error
        }
        return user.user
    }

    /// Every problem with `account` at once (`AuthError.validation`).
    private func requireSeedable(_ account: SeededAccount, id: UserID, secret: TOTPSecret??) async throws {
        var problems: [FieldError] = []
        if !Self.isWellFormed(id.rawValue) {
            problems.append(FieldError(field: "id", message: "Use 15 lower-case letters and digits, as PocketBase ids are."))
        } else if try await accounts.database.user(id: id) != nil {
            problems.append(FieldError(field: "id", message: "An account already has the id \(id.rawValue)."))
        }
        if let password = account.password {
            problems += accounts.signUpProblems(
                SignUpRequest(email: account.email, password: password), name: account.profile.name)
        } else if !EmailAddress.isPlausible(account.email) {
            problems.append(FieldError(field: "email", message: "Enter a valid email address."))
        }
        if case .some(.none) = secret {
            problems.append(FieldError(field: "totpSecret", message: "Give the authenticator key as base32."))
        }
        guard problems.isEmpty else { throw AuthError.validation(problems) }
    }

    /// Whether `id` has a PocketBase record id's shape: 15 characters of `a-z0-9`.
    static func isWellFormed(_ id: String) -> Bool {
        id.utf8.count == 15 && id.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
    }
}

extension Optional {
    /// The wrapped value mapped by an async function.
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
