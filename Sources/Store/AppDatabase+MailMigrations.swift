import GRDB

extension AppDatabase {
    /// The dev mailbox sealed at rest (issue 22, item 13): a mail's subject, text, html, code and
    /// link live in one `SecretBox` value, `content_sealed`, under a key derived from the key file
    /// (`MailboxMailer`), so the SQLite file alone shows who was mailed and when but no live code or
    /// link. Mails kept before were plain text and a migration has no key to seal them with: they
    /// are dropped (a code or link still wanted can be sent again), with `secure_delete` on so their
    /// pages are overwritten with zeros rather than left in the file's free space.
    static func registerMailMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v9-mails-sealed") { db in
            let secureDelete = try Int.fetchOne(db, sql: "PRAGMA secure_delete") ?? 0
            try db.execute(sql: "PRAGMA secure_delete = ON")
            try db.execute(
                sql: """
                    DROP TABLE mails;
                    CREATE TABLE mails (
                        id INTEGER PRIMARY KEY,
                        recipient TEXT NOT NULL,
                        recipient_normalized TEXT NOT NULL,
                        content_sealed BLOB NOT NULL CHECK (length(content_sealed) > 40),
                        created_at DATETIME NOT NULL
                    );
                    CREATE INDEX mails_recipient ON mails(recipient_normalized, id);
                    """)
            try db.execute(sql: "PRAGMA secure_delete = \(secureDelete == 0 ? "OFF" : "ON")")
        }
    }
}
