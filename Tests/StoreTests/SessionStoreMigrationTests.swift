import Foundation
import GRDB
import Testing

@testable import Store

/// "v11-one-session-store" moves console sessions into `sessions`: every person's row keeps its
/// id (so its sealed credential and rotated refresh tokens still belong to it), superusers' old
/// rows arrive revoked, and the table's CHECK lets a row belong to a person or a superuser, never
/// both or neither.
@Suite struct SessionStoreMigrationTests {
    @Test func consoleSessionsJoinTheOneStoreRevokedAndPeoplesRowsKeepTheirIDs() throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue, upTo: "v10-superuser-totp-rules")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO superusers (id, email, email_normalized, password_hash, created_at, updated_at)
                        VALUES ('boss', 'boss@example.com', 'boss@example.com', 'x', '2026-01-01', '2026-01-01');
                    INSERT INTO sessions (id, token_hash, refresh_token_hash, user_id, created_at, last_used_at, expires_at)
                        VALUES (7, 'person-hash', 'person-refresh', 'ann', '2026-01-01', '2026-01-01', '2099-01-01');
                    INSERT INTO session_credentials (session_id, credential) VALUES (7, 'sealed:x');
                    INSERT INTO rotated_refresh_tokens (token_hash, session_id, rotated_at) VALUES ('old', 7, '2026-01-01');
                    INSERT INTO console_sessions (token_hash, superuser_id, created_at, last_used_at, expires_at)
                        VALUES ('live-console', 'boss', '2026-01-01', '2026-01-01', '2099-01-01');
                    """)
        }
        try AppDatabase.migrator.migrate(queue)
        try queue.read { db in
            #expect(try db.tableExists("console_sessions") == false)
            let person = try #require(try Row.fetchOne(db, sql: "SELECT * FROM sessions WHERE id = 7"))
            #expect(person["user_id"] as String? == "ann" && person["superuser_id"] as String? == nil)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM session_credentials WHERE session_id = 7") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM rotated_refresh_tokens WHERE session_id = 7") == 1)
            let console = try #require(try Row.fetchOne(db, sql: "SELECT * FROM sessions WHERE superuser_id = 'boss'"))
            #expect(console["user_id"] as String? == nil)
            #expect(console["revoked_at"] as String? != nil, "a token hashed without a kind opens nothing any more")
        }
        try queue.write { db in
            // The credential still dies with its session (the trigger came back with the table).
            try db.execute(sql: "UPDATE sessions SET revoked_at = '2026-02-01' WHERE id = 7")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM session_credentials") == 0)
            for (user, superuser) in [("'ann'", "'boss'"), ("NULL", "NULL")] {
                #expect(throws: DatabaseError.self) {
                    try db.execute(
                        sql: """
                            INSERT INTO sessions (token_hash, user_id, superuser_id, created_at, last_used_at, expires_at)
                            VALUES ('t-\(user)', \(user), \(superuser), '2026-01-01', '2026-01-01', '2099-01-01')
                            """)
                }
            }
            try db.execute(sql: "DELETE FROM superusers WHERE id = 'boss'")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM sessions WHERE superuser_id IS NOT NULL") == 0)
        }
    }
}
