import AuthCore
import Foundation
import GRDB

/// A row of `oauth_apps`: an app that may use the hosted sign-in page.
public struct AppRecord: Sendable, Equatable, Codable, FetchableRecord {
    public var id: String
    public var name: String
    public var callbackURLs: [String]
    /// Older SDKs read `access_token` etc. on the callback; off by default, marked unsafe.
    public var legacyCallback: Bool
    /// The hosted page's logo (https, or http on localhost); nil shows the app's name alone.
    public var logoURL: String?
    /// `#rrggbb` (lower case) for the primary button and links; nil keeps Gatehouse's accent.
    public var accentColor: String?
    /// The app's terms and privacy pages, linked in the hosted page's footer.
    public var termsURL: String?
    public var privacyURL: String?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: String, name: String, callbackURLs: [String], legacyCallback: Bool, logoURL: String? = nil,
        accentColor: String? = nil, termsURL: String? = nil, privacyURL: String? = nil, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.name = name
        self.callbackURLs = callbackURLs
        self.legacyCallback = legacyCallback
        self.logoURL = logoURL
        self.accentColor = accentColor
        self.termsURL = termsURL
        self.privacyURL = privacyURL
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// `callback_urls` holds a JSON array, which GRDB decodes into `[String]`.
    enum CodingKeys: String, CodingKey {
        case id, name
        case callbackURLs = "callback_urls"
        case legacyCallback = "legacy_callback"
        case logoURL = "logo_url"
        case accentColor = "accent_color"
        case termsURL = "terms_url"
        case privacyURL = "privacy_url"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

/// A row of `oauth_app_codes`: the one-time `insforge_code` handed to an app's callback.
public struct AppCodeRecord: Sendable, Equatable, Codable, FetchableRecord {
    public var codeHash: String
    public var appID: String
    public var userID: UserID
    public var codeChallenge: String
    public var clientType: String
    public var callbackURL: String
    public var createdAt: Date
    public var expiresAt: Date
    public var consumedAt: Date?

    public init(
        codeHash: String, appID: String, userID: UserID, codeChallenge: String, clientType: String,
        callbackURL: String, createdAt: Date, expiresAt: Date
    ) {
        self.codeHash = codeHash
        self.appID = appID
        self.userID = userID
        self.codeChallenge = codeChallenge
        self.clientType = clientType
        self.callbackURL = callbackURL
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case codeHash = "code_hash"
        case appID = "app_id"
        case userID = "user_id"
        case codeChallenge = "code_challenge"
        case clientType = "client_type"
        case callbackURL = "callback_url"
        case createdAt = "created_at"
        case expiresAt = "expires_at"
        case consumedAt = "consumed_at"
    }
}

extension AppDatabase {
    /// Inserts an app, or replaces the one with its id keeping its first `created_at`; true when it was new.
    @discardableResult
    public func saveApp(_ app: AppRecord) async throws -> Bool {
        let urls = String(decoding: try JSONEncoder().encode(app.callbackURLs), as: UTF8.self)
        return try await pool.write { db in
            let existed =
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM oauth_apps WHERE id = ?)", arguments: [app.id]) ?? false
            try db.execute(
                sql: """
                    INSERT INTO oauth_apps (id, name, callback_urls, legacy_callback, logo_url, accent_color, terms_url,
                        privacy_url, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET name = excluded.name, callback_urls = excluded.callback_urls,
                        legacy_callback = excluded.legacy_callback, logo_url = excluded.logo_url,
                        accent_color = excluded.accent_color, terms_url = excluded.terms_url,
                        privacy_url = excluded.privacy_url, updated_at = excluded.updated_at
                    """,
                arguments: [
                    app.id, app.name, urls, app.legacyCallback, app.logoURL, app.accentColor, app.termsURL, app.privacyURL,
                    app.createdAt.storedText, app.updatedAt.storedText
                ])
            return !existed
        }
    }

    public func app(id: String) async throws -> AppRecord? {
        try await pool.read { db in try AppRecord.fetchOne(db, sql: "SELECT * FROM oauth_apps WHERE id = ?", arguments: [id]) }
    }

    public func apps() async throws -> [AppRecord] {
        try await pool.read { db in try AppRecord.fetchAll(db, sql: "SELECT * FROM oauth_apps ORDER BY id") }
    }

    /// Every app whose allow-list contains `callbackURL` exactly.
    public func apps(allowingCallback callbackURL: String) async throws -> [AppRecord] {
        try await apps().filter { $0.callbackURLs.contains(callbackURL) }
    }

    @discardableResult
    public func deleteApp(id: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM oauth_apps WHERE id = ?", arguments: [id])
            return db.changesCount == 1
        }
    }

    public func insertAppCode(_ code: AppCodeRecord) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO oauth_app_codes (code_hash, app_id, user_id, code_challenge, client_type, callback_url,
                        created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    code.codeHash, code.appID, code.userID.rawValue, code.codeChallenge, code.clientType,
                    code.callbackURL, code.createdAt.storedText, code.expiresAt.storedText
                ])
        }
    }

    /// Spends a code: the first call for an unexpired code gets it; every later call, and any
    /// call after expiry, gets nil. A conditional UPDATE, so two concurrent exchanges cannot both win.
    public func consumeAppCode(codeHash: String, at now: Date) async throws -> AppCodeRecord? {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE oauth_app_codes SET consumed_at = ? WHERE code_hash = ? AND consumed_at IS NULL AND expires_at > ?
                    """, arguments: [now.storedText, codeHash, now.storedText])
            guard db.changesCount == 1 else { return nil }
            return try AppCodeRecord.fetchOne(db, sql: "SELECT * FROM oauth_app_codes WHERE code_hash = ?", arguments: [codeHash])
        }
    }
}
