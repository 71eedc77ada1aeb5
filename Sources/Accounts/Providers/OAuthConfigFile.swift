import Foundation
import OAuth
import Secrets
import Store

/// The providers and apps config file (`--oauth-config`), JSON:
/// `{"providers": [{name, type, clientId, clientSecret, issuer?, …}], "apps": [{id, name, callbackURLs, legacyCallback?}]}`.
/// A `clientSecret` of the form `env:NAME` is read from the environment variable NAME.
/// Loaded at start; each entry replaces the stored one of the same name/id.
public enum OAuthConfigFile {
    private struct Contents: Decodable {
        var providers: [ProviderBody]?
        var apps: [AppBody]?
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// Applies the file and returns how many providers and apps it configured.
    @discardableResult
    public static func apply(
        path: String, database: AppDatabase, secretBox: SecretBox,
        clock: @escaping @Sendable () -> Date = Date.init
    ) async throws -> (providers: Int, apps: Int) {
        guard let data = FileManager.default.contents(atPath: path) else { throw Invalid(description: "cannot read \(path)") }
        let contents: Contents
        do { contents = try JSONDecoder().decode(Contents.self, from: data) } catch {
            throw Invalid(description: "\(path) is not a valid providers file: \(error)")
        }
        let registry = ProviderRegistry(database: database, secretBox: secretBox, clock: clock)
        for body in contents.providers ?? [] {
            var configuration = body.configuration
            if let secret = configuration.clientSecret, secret.hasPrefix("env:") {
                configuration.clientSecret = ProcessInfo.processInfo.environment[String(secret.dropFirst(4))]
            }
            let problems = configuration.problems()
            guard problems.isEmpty else {
                throw Invalid(
                    description: "provider \(body.name): "
                        + problems.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))
            }
            try await registry.save(configuration)
        }
        for body in contents.apps ?? [] {
            guard let id = body.id, ProviderConfiguration.isValidName(id) else {
                throw Invalid(description: "app \(body.name): id must be a-z0-9_-")
            }
            for url in body.callbackURLs {
                if let problem = CallbackURL.registrationProblem(url) {
                    throw Invalid(description: "app \(id): \(url): \(problem)")
                }
            }
            let now = clock()
            try await registry.saveApp(
                AppRecord(
                    id: id, name: body.name, callbackURLs: body.callbackURLs,
                    legacyCallback: body.legacyCallback ?? false, createdAt: now, updatedAt: now))
        }
        return (contents.providers?.count ?? 0, contents.apps?.count ?? 0)
    }
}
