import GRDB

extension AppDatabase {
    /// An app's branding on its hosted sign-in page (issue 25, item 1): an optional logo, an accent
    /// colour (`#rrggbb`, lower case) and links to its terms and privacy pages. Every column may be
    /// NULL, so apps registered before keep Gatehouse's own look.
    static func registerAppBrandingMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("s16-app-branding") { db in
            try db.execute(
                sql: """
                    ALTER TABLE oauth_apps ADD COLUMN logo_url TEXT CHECK (logo_url IS NULL OR length(logo_url) BETWEEN 1 AND 2048);
                    ALTER TABLE oauth_apps ADD COLUMN accent_color TEXT
                        CHECK (accent_color IS NULL OR (length(accent_color) = 7 AND accent_color GLOB '#[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'));
                    ALTER TABLE oauth_apps ADD COLUMN terms_url TEXT CHECK (terms_url IS NULL OR length(terms_url) BETWEEN 1 AND 2048);
                    ALTER TABLE oauth_apps ADD COLUMN privacy_url TEXT CHECK (privacy_url IS NULL OR length(privacy_url) BETWEEN 1 AND 2048);
                    """)
        }
    }
}
