import Accounts
import ArgumentParser
import Foundation
import GatehouseWeb
import Secrets
import Store

/// `serve` options for sign-in providers, the test provider, the hosted page and Sign in with Apple.
struct OAuthOptions: ParsableArguments {
    @Option(help: "JSON file of providers and apps to load at start (see README). (GATEHOUSE_OAUTH_CONFIG)")
    var oauthConfig: String?

    @Option(
        help:
            "File with the server's keys (sealing provider secrets, keying stored code and session hashes); created with mode 0600. Defaults to DB.key. (GATEHOUSE_SECRET_KEY_FILE)"
    )
    var secretKeyFile: String?

    @Flag(help: "Serve the built-in test provider (/_/test-idp) even when not bound to loopback. (GATEHOUSE_TEST_PROVIDER=1)")
    var testProvider = false

    @Option(
        help:
            "Audience (bundle id or service id) accepted for Sign in with Apple; repeat for several. (GATEHOUSE_APPLE_AUDIENCE, comma-separated)"
    )
    var appleAudience: [String] = []

    @Option(help: "JWKS URL for Sign in with Apple identity tokens. (GATEHOUSE_APPLE_JWKS_URL)")
    var appleJWKSURL: String?

    @Option(
        help:
            "Audience (OAuth client id) accepted for Google ID tokens at /api/auth/id-token, besides a configured google provider's; repeat for several. (GATEHOUSE_GOOGLE_AUDIENCE, comma-separated)"
    )
    var googleAudience: [String] = []

    @Option(help: "JWKS URL for Google ID tokens. (GATEHOUSE_GOOGLE_JWKS_URL)")
    var googleJWKSURL: String?

    /// The key file: `--secret-key-file`, else `GATEHOUSE_SECRET_KEY_FILE`, else `DB.key`.
    func keyFilePath(db: String) -> String {
        ServerKeys.filePath(given: secretKeyFile, db: db)
    }

    func settings(
        keys: ServerKeys, database: AppDatabase, loopback: Bool,
        baseURL: @escaping @Sendable () -> String
    ) async throws -> OAuthSettings {
        let box = try SecretBox(key: keys.secretBox)
        if let path = oauthConfig ?? Environment.value("OAUTH_CONFIG") {
            try await OAuthConfigFile.apply(path: path, database: database, secretBox: box)
        }
        func list(_ given: [String], _ variable: String) -> Set<String> {
            Set(given.isEmpty ? (Environment.value(variable)?.split(separator: ",").map(String.init) ?? []) : given)
        }
        return OAuthSettings(
            baseURL: baseURL, secretBox: box,
            testProviderEnabled: loopback || testProvider || Environment.value("TEST_PROVIDER") == "1",
            appleJWKSURL: appleJWKSURL ?? Environment.value("APPLE_JWKS_URL") ?? "https://appleid.apple.com/auth/keys",
            appleAudiences: list(appleAudience, "APPLE_AUDIENCE"),
            googleJWKSURL: googleJWKSURL ?? Environment.value("GOOGLE_JWKS_URL") ?? "https://www.googleapis.com/oauth2/v3/certs",
            googleAudiences: list(googleAudience, "GOOGLE_AUDIENCE"))
    }
}

extension ServerKeys {
    /// Where the server's key file is for `db`: the path given, else `GATEHOUSE_SECRET_KEY_FILE`, else
    /// `DB.key` beside the database; `serve` and the test-data commands read the same file.
    static func filePath(given: String?, db: String) -> String {
        given ?? Environment.value("SECRET_KEY_FILE") ?? db + ".key"
    }
}
