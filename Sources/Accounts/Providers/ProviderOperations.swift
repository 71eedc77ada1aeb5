import AuthCore
import Foundation
import HTTPServer
import OAuth
import Store

/// Superusers' changes to sign-in providers and registered apps: the rules the console's
/// `/_/providers` page and the JSON API (`/_/api/providers`, `/_/api/apps`) both follow — storage,
/// and the one audit event each change is recorded under, naming the superuser.
public struct ProviderOperations: Sendable {
    let env: Accounts
    let registry: ProviderRegistry
    let staff: Staff
    let request: Request
    /// Which front-end asked, kept in the audit event (`console` or `api`).
    let via: String

    public init(env: Accounts, registry: ProviderRegistry, staff: Staff, request: Request, via: String) {
        (self.env, self.registry) = (env, registry)
        (self.staff, self.request, self.via) = (staff, request, via)
    }

    /// Saves a checked configuration, replacing one of the same name: audited as created or as
    /// updated, whichever it was. True when it was new.
    @discardableResult
    public func save(_ configuration: ProviderConfiguration) async throws -> Bool {
        let created = try await registry.save(configuration)
        await audit(
            created ? .providerCreated : .providerUpdated,
            ["provider": .string(configuration.name), "mode": .string(configuration.mode.rawValue)])
        return created
    }

    /// Switches a provider between live and the built-in test provider; false when there is none.
    /// Switching to test mode is a superuser's act, and audited as one.
    public func setMode(_ mode: ProviderMode, of name: String) async throws -> Bool {
        guard try await env.database.setProviderMode(name: name, mode: mode.rawValue, at: env.clock()) else { return false }
        await audit(.providerModeChanged, ["provider": .string(name), "mode": .string(mode.rawValue)])
        return true
    }

    /// Saves a checked change to a provider of that name; a change without a client secret (or JWKS
    /// URL) keeps the stored one (the console never shows a secret again). False when there is none.
    public func update(_ configuration: ProviderConfiguration) async throws -> Bool {
        guard let stored = try await provider(named: configuration.name) else { return false }
        var changed = configuration
        if changed.clientSecret == nil { changed.clientSecret = stored.clientSecret }
        // The console has no field for it: one set through the JSON API stays.
        if changed.jwksURL == nil { changed.jwksURL = stored.jwksURL }
        try await registry.save(changed)
        await audit(
            .providerUpdated,
            [
                "provider": .string(changed.name), "mode": .string(changed.mode.rawValue),
                "secretChanged": .bool(configuration.clientSecret != nil)
            ])
        return true
    }

    /// The configured provider of this name, if any.
    public func provider(named name: String) async throws -> ProviderConfiguration? {
        try await registry.provider(named: name)
    }

    /// Removes a provider; false when there is none.
    public func deleteProvider(_ name: String) async throws -> Bool {
        guard try await env.database.deleteProvider(name: name) else { return false }
        await audit(.providerDeleted, ["provider": .string(name)])
        return true
    }

    /// Registers a checked app, replacing the one with its id (whose creation time stays): audited
    /// as created or as updated, whichever it was. True when it was new.
    @discardableResult
    public func register(_ app: RegisteredApp) async throws -> Bool {
        let created = try await env.database.saveApp(app.row)
        await audit(created ? .appCreated : .appUpdated, ["app": .string(app.id), "legacyCallback": .bool(app.legacyCallback)])
        return created
    }

    /// Saves a checked change to a registered app (its id and creation time stay); false when there is none.
    public func update(_ app: RegisteredApp) async throws -> Bool {
        guard let stored = try await env.database.app(id: app.id) else { return false }
        var changed = app.row
        changed.createdAt = stored.createdAt
        try await env.database.saveApp(changed)
        await audit(.appUpdated, ["app": .string(app.id), "legacyCallback": .bool(app.legacyCallback)])
        return true
    }

    /// The registered app with this id, if any.
    public func app(id: String) async throws -> RegisteredApp? {
        try await env.database.app(id: id).map(RegisteredApp.init)
    }

    /// Removes an app; false when there is none.
    public func deleteApp(_ id: String) async throws -> Bool {
        guard try await env.database.deleteApp(id: id) else { return false }
        await audit(.appDeleted, ["app": .string(id)])
        return true
    }

    /// Every configured provider.
    public func providers() async throws -> [ProviderConfiguration] {
        try await registry.all()
    }

    /// Whether a provider of this name is configured.
    public func hasProvider(named name: String) async throws -> Bool {
        try await env.database.provider(named: name) != nil
    }

    /// Every registered app.
    public func apps() async throws -> [RegisteredApp] {
        try await env.database.apps().map(RegisteredApp.init)
    }

    /// Whether an app with this id is registered.
    public func hasApp(id: String) async throws -> Bool {
        try await env.database.app(id: id) != nil
    }

    private func audit(_ event: AuditEvent, _ data: [String: JSONValue]) async {
        await env.audit.record(
            event, actor: staff.superuser.id, request: request, data: data.merging(["via": .string(via)]) { $1 })
    }
}
