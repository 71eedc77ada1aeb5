import Foundation
import OAuth
import Secrets
import Store

/// The providers and apps config file (`--oauth-config`), JSON:
/// `{"providers": [{name, type, clientId, clientSecret, issuer?, …}], "apps": [{id, name, callbackURLs, legacyCallback?, logoURL?, accentColor?, termsURL?, privacyURL?}]}`.
/// A `clientSecret` of the form `env:NAME` is read from the environment variable NAME.
/// Loaded at start; each entry replaces the stored one of the same name/id.
public enum OAuthConfigFile {
    private struct Contents: Decodable {
        var providers: [ProviderBody]?
        var apps: [AppBody]?
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String

        init(description: String) { self.description = description }

        /// An entry's problems by field, in one line.
        init(entry: String, _ problems: [String: String]) {
            description =
                "\(entry): " + problems.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
        }
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
            guard problems.isEmpty else { throw Invalid(entry: "provider \(body.name)", problems) }
            try await registry.save(configuration)
        }
        for body in contents.apps ?? [] {
            guard let id = body.id else { throw Invalid(description: "app \(body.name): id must be a-z0-9_-") }
            let problems = body.problems(id: id)
            guard problems.isEmpty else { throw Invalid(entry: "app \(id)", problems) }
            try await registry.saveApp(body.record(id: id, at: clock()))
        }
        return (contents.providers?.count ?? 0, contents.apps?.count ?? 0)
    }
}
