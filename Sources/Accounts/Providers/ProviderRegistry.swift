import Foundation
import OAuth
import Secrets
import Store

/// Sign-in providers as stored in `oauth_providers`, with client secrets sealed at rest, and the
/// registered apps an app sign-in may return to (`oauth_apps`).
public struct ProviderRegistry: Sendable {
    let database: AppDatabase
    public let secretBox: SecretBox
    let clock: @Sendable () -> Date

    init(database: AppDatabase, secretBox: SecretBox, clock: @escaping @Sendable () -> Date) {
        self.database = database
        self.secretBox = secretBox
        self.clock = clock
    }

    /// The registry in `database`, as the web front-end builds it at start-up.
    public init(database: AccountsDatabase, secretBox: SecretBox, clock: @escaping @Sendable () -> Date) {
        self.init(database: database.database, secretBox: secretBox, clock: clock)
    }

    /// Stores (or replaces) a provider; the secret is sealed before it reaches SQLite. True when it was new.
    @discardableResult
    func save(_ configuration: ProviderConfiguration) async throws -> Bool {
        let now = clock()
        return try await database.saveProvider(
            ProviderRecord(
                name: configuration.name, type: configuration.type.rawValue, mode: configuration.mode.rawValue,
                displayName: configuration.displayName, issuer: configuration.issuer,
                authorizationURL: configuration.authorizationURL, tokenURL: configuration.tokenURL,
                userInfoURL: configuration.userInfoURL, jwksURL: configuration.jwksURL, clientId: configuration.clientId,
                clientSecretSealed: configuration.clientSecret.flatMap { $0.isEmpty ? nil : Data(secretBox.seal($0)) },
                scopes: configuration.scopes.joined(separator: " "), createdAt: now, updatedAt: now))
    }

    public func provider(named name: String) async throws -> ProviderConfiguration? {
        guard ProviderConfiguration.isValidName(name), let record = try await database.provider(named: name) else { return nil }
        return try configuration(record)
    }

    public func all() async throws -> [ProviderConfiguration] {
        try await database.providers().map(configuration)
    }

    /// The registered apps.
    public func apps() async throws -> [RegisteredApp] { try await database.apps().map(RegisteredApp.init) }

    /// Stores (or replaces) a checked app; true when it was new.
    @discardableResult
    func saveApp(_ app: RegisteredApp) async throws -> Bool { try await database.saveApp(app.row) }

    private func configuration(_ record: ProviderRecord) throws -> ProviderConfiguration {
        ProviderConfiguration(
            name: record.name, type: ProviderType(rawValue: record.type) ?? .oidc,
            mode: ProviderMode(rawValue: record.mode) ?? .live,
            displayName: record.displayName, issuer: record.issuer, authorizationURL: record.authorizationURL,
            tokenURL: record.tokenURL, userInfoURL: record.userInfoURL, jwksURL: record.jwksURL, clientId: record.clientId,
            clientSecret: try record.clientSecretSealed.map { try secretBox.open(Array($0)) },
            scopes: record.scopes.split(separator: " ").map(String.init))
    }
}
