import Foundation
import GRDB
import Testing

@testable import Store

/// "v9-mails-sealed": mails kept in plain text before have no key to be sealed with, so they are
/// dropped — and their text is gone from the file, not left in its free pages.
@Suite struct MailSealingMigrationTests {
    @Test func plainMailsFromBeforeLeaveNoTraceInTheFile() throws {
        let database = try TestDatabase()
        let path = database.directory.appendingPathComponent("before.sqlite").path
        let secret = "plain-magic-link-token-0123456789abcdef"
        do {
            let queue = try DatabaseQueue(path: path)
            try AppDatabase.migrator.migrate(queue, upTo: "v8-external-auths-vouched-and-test-provider")
            try queue.write { db in
                for index in 0..<50 {
                    try db.execute(
                        sql: """
                            INSERT INTO mails (recipient, recipient_normalized, subject, text, html, code, link, created_at)
                            VALUES ('a@example.com', 'a@example.com', 'Sign in', ?, ?, '123456', ?, '2026-01-01')
                            """,
                        arguments: ["Open \(secret)-\(index)", "<a>\(secret)-\(index)</a>", "http://x/?t=\(secret)-\(index)"])
                }
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).range(of: Data(secret.utf8)) != nil)
            try AppDatabase.migrator.migrate(queue)
            #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM mails") } == 0)
        }
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(file.range(of: Data(secret.utf8)) == nil, "the dropped mails' text is still in the file")
    }
}
