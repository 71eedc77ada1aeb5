import AuthCore
import Foundation
import Logging
import Secrets
import Store

/// The keys a test suite sends to Descope's management API (`Authorization: Bearer
/// <projectId>:<key>`): made and revoked by staff (the console, `gatehouse descope management-key
/// create`), shown once, kept only as keyed hashes, each act audited. A key is `K` and 43 random
/// characters (256 bits), so it is never guessed, and a check is one indexed read of its hash.
public struct ManagementKeys: Sendable {
    let database: AppDatabase
    let hasher: KeyedHash
    let audit: AuditTrail
    let clock: @Sendable () -> Date

    public init(env: Accounts) {
        (database, hasher, audit, clock) = (env.database, env.sessions.bindings.hasher, env.audit, env.clock)
    }

    /// For the command line, which has the file and the keys but no server.
    public init(database: AppDatabase, hasher: KeyedHash, clock: @escaping @Sendable () -> Date, logger: Logger) {
        (self.database, self.hasher, self.clock) = (database, hasher, clock)
        audit = AuditTrail(database: database, clock: clock, logger: logger)
    }

    /// The longest name a key may have.
    static let maximumNameLength = 64

    /// Makes a key named `name` (1–64 characters; `.validation` on the field `name` otherwise):
    /// the key as listed, and its secret, which is never shown again. `actor` is the superuser
    /// (nil on the command line), `ip` where the request came from, `via` the way in ("console", "cli").
    public func create(name: String, actor: String?, ip: String?, via: String) async throws -> (
        key: ManagementKey, secret: String
    ) {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...Self.maximumNameLength).contains(name.count) else {
            throw AuthError.validation([
                FieldError(field: "name", message: "Use a name of 1 to \(Self.maximumNameLength) characters.")
            ])
        }
        let id = SecureRandom.userID()
        let secret = "K" + SecureRandom.token()
        let now = clock()
        try await database.insertManagementKey(id: id, name: name, keyHash: hash(secret), at: now)
        await audit.record(
            .managementKeyCreated, actor: actor, ip: ip,
            data: ["key": .string(id), "name": .string(name), "via": .string(via)])
        return (ManagementKey(id: id, name: name, createdAt: now, revokedAt: nil), secret)
    }

    /// Every key, newest first, revoked ones included.
    public func list() async throws -> [ManagementKey] {
        try await database.managementKeys().map(ManagementKey.init)
    }

    /// Revokes a live key; false when there is no live key `id`.
    public func revoke(id: String, actor: String?, ip: String?, via: String) async throws -> Bool {
        guard let key = try await database.revokeManagementKey(id: id, at: clock()) else { return false }
        await audit.record(
            .managementKeyRevoked, actor: actor, ip: ip,
            data: ["key": .string(key.id), "name": .string(key.name), "via": .string(via)])
        return true
    }

    /// The live key whose secret this is; nil for an unknown or revoked one.
    public func key(for secret: String) async throws -> ManagementKey? {
        guard secret.hasPrefix("K"), secret.utf8.count < 128 else { return nil }
        return try await database.liveManagementKey(keyHash: hash(secret)).map(ManagementKey.init)
    }

    private func hash(_ secret: String) -> String { hasher.hex("management-key:" + secret) }
}
