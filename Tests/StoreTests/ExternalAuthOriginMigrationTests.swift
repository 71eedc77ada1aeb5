import Foundation
import GRDB
import Testing

@testable import Store

/// Links made before "v8-external-auths-vouched-and-test-provider" get what the file can tell of
/// their making: vouched when their account is verified, test links when the test provider issued
/// their (provider, subject).
@Suite struct ExternalAuthOriginMigrationTests {
    @Test func earlierLinksAreJudgedByWhatTheFileKnows() throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue, upTo: "v7-verification-ends-with-verifying")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO users (id, email, email_normalized, verified, created_at, updated_at) VALUES
                        ('owner', 'owner@example.com', 'owner@example.com', 1, '2026-01-01', '2026-01-01'),
                        ('claimed', 'victim@example.com', 'victim@example.com', 0, '2026-01-01', '2026-01-01');
                    INSERT INTO test_idp_accounts (provider, subject, email, email_verified, created_at)
                        VALUES ('acme', 'typed', 'x@example.com', 1, '2026-01-01');
                    INSERT INTO external_auths (user_id, provider, subject, created_at) VALUES
                        ('owner', 'acme', 'live-sub', '2026-01-01'),
                        ('owner', 'other', 'typed', '2026-01-01'),
                        ('claimed', 'acme', 'typed', '2026-01-01');
                    """)
        }
        try AppDatabase.migrator.migrate(queue)
        let rows = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT provider, subject, email_vouched, test_provider FROM external_auths ORDER BY id")
                .map { row -> [String] in
                    [row["provider"], row["subject"], String(row["email_vouched"] as Int), String(row["test_provider"] as Int)]
                }
        }
        #expect(
            rows == [
                ["acme", "live-sub", "1", "0"], ["other", "typed", "1", "0"], ["acme", "typed", "0", "1"]
            ])
    }
}
