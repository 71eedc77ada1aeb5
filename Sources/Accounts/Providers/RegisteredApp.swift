import Foundation
import Store

/// An app registered for hosted sign-in: where its callbacks may go and how its hosted page looks.
/// What the console, the admin API and the hosted pages read and write (`ProviderOperations`).
public struct RegisteredApp: Sendable, Equatable {
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
    var createdAt: Date
    var updatedAt: Date

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

    init(_ row: AppRecord) {
        self.init(
            id: row.id, name: row.name, callbackURLs: row.callbackURLs, legacyCallback: row.legacyCallback,
            logoURL: row.logoURL, accentColor: row.accentColor, termsURL: row.termsURL, privacyURL: row.privacyURL,
            createdAt: row.createdAt, updatedAt: row.updatedAt)
    }

    /// The row that stores this app.
    var row: AppRecord {
        AppRecord(
            id: id, name: name, callbackURLs: callbackURLs, legacyCallback: legacyCallback, logoURL: logoURL,
            accentColor: accentColor, termsURL: termsURL, privacyURL: privacyURL, createdAt: createdAt, updatedAt: updatedAt)
    }
}
