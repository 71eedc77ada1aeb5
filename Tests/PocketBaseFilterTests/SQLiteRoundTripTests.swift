import Foundation
import GRDB
import PocketBaseFilter
import Testing

/// Compiled filters and sorts run against a real in-memory SQLite database.
@Suite struct SQLiteRoundTripTests {
    let database: DatabaseQueue

    init() throws {
        database = try DatabaseQueue()
        try database.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE users (
                        id TEXT PRIMARY KEY, email TEXT, name TEXT, owner_id TEXT, verified INTEGER NOT NULL,
                        age INTEGER, created TEXT NOT NULL, updated TEXT NOT NULL, meta TEXT);
                    INSERT INTO users VALUES
                        ('u1', 'alice@example.com', 'Alice', 'u1', 1, 30,
                         '2024-01-01 10:00:00.000Z', '2024-01-02 10:00:00.000Z', '{"plan":"pro"}'),
                        ('u2', 'bob@example.com', 'Bob', NULL, 0, 17,
                         '2024-02-01 00:00:00.000Z', '2024-02-01 00:00:00.000Z', NULL),
                        ('u3', 'carol@test.org', 'Carol_x', '', 1, NULL,
                         '2024-03-01 00:00:00.000Z', '2024-01-01 00:00:00.000Z', NULL),
                        ('u4', NULL, '50% off', 'u1', 0, 45,
                         '2023-12-31 23:59:59.999Z', '2024-01-01 00:00:00.000Z', NULL);
                    """)
        }
    }

    @Test func lowerModifierComparesInLowerCase() throws {
        #expect(try ids(#"email:lower = "alice@example.com""#) == ["u1"])
        #expect(try ids(#"name:lower = "carol_x""#) == ["u3"])
        #expect(try ids(#"name = "carol_x""#) == [], "without the modifier the case matters")
    }

    private func ids(
        _ filter: String, authID: String? = nil, now: Date = Fixtures.now, sort: String? = nil
    ) throws -> [String] {
        let context = Fixtures.context(authID: authID, now: now)
        let compiled = try PocketBaseFilter.compile(filter, context: context)
        let order =
            try sort.map { try PocketBaseFilter.compileSort($0, fields: context.fields).orderByClause } ?? "ORDER BY id"
        let arguments = StatementArguments(compiled.arguments.map(\.databaseValue))
        return try database.read { db in
            try String.fetchAll(db, sql: "SELECT id FROM users WHERE \(compiled.sql) \(order)", arguments: arguments)
        }
    }

    @Test func equalAndNotEqual() throws {
        #expect(try ids(#"email = "bob@example.com""#) == ["u2"])
        #expect(try ids(#"email != "bob@example.com""#) == ["u1", "u3", "u4"])
    }

    @Test func bools() throws {
        #expect(try ids("verified = true") == ["u1", "u3"])
        #expect(try ids("verified = false") == ["u2", "u4"])
        #expect(try ids("verified != true") == ["u2", "u4"])
    }

    @Test func numbers() throws {
        #expect(try ids("age > 18") == ["u1", "u4"])
        #expect(try ids("age >= 17 && age < 30.5") == ["u1", "u2"])
        #expect(try ids("age <= -1") == [])
    }

    @Test func nullAndEmptyAlike() throws {
        #expect(try ids("email = null") == ["u4"])
        #expect(try ids("email != null") == ["u1", "u2", "u3"])
        #expect(try ids("owner = null") == ["u2", "u3"])
        #expect(try ids(#"owner = """#) == ["u2", "u3"])
        #expect(try ids(#"owner != """#) == ["u1", "u4"])
        #expect(try ids(#"owner != "u1""#) == ["u2", "u3"])
    }

    @Test func contains() throws {
        #expect(try ids(#"email ~ "example""#) == ["u1", "u2"])
        #expect(try ids(#"email !~ "example""#) == ["u3"])
        #expect(try ids(#"name ~ "ALI""#) == ["u1"])
    }

    @Test func underscoreAndPercentAreLiteralUnlessTheValueHasAWildcard() throws {
        #expect(try ids(#"name ~ "_""#) == ["u3"])
        #expect(try ids(#"name ~ "50\%""#) == ["u4"])
        #expect(try ids(#"name ~ "%o%""#) == ["u2", "u3", "u4"])
        #expect(try ids(#"name ~ "B_b%""#) == ["u2"])
    }

    @Test func containsAnotherField() throws {
        #expect(try ids("email ~ name") == ["u1", "u2"])
    }

    @Test func fieldAgainstField() throws {
        #expect(try ids("created > updated") == ["u3"])
        #expect(try ids("created = updated") == ["u2"])
        #expect(try ids("created != updated") == ["u1", "u3", "u4"])
    }

    @Test func datesCompareAsStoredText() throws {
        #expect(try ids(#"created >= "2024-02-01""#) == ["u2", "u3"])
        #expect(try ids("created < @now") == ["u1", "u2", "u4"])
        #expect(try ids("created >= @yearStart") == ["u1", "u2", "u3"])
        #expect(try ids("created >= @monthStart && created <= @monthEnd") == ["u2"])
    }

    @Test func precedenceAndParentheses() throws {
        #expect(try ids(#"age > 18 || verified = true && name ~ "car""#) == ["u1", "u3", "u4"])
        #expect(try ids(#"(age > 18 || verified = true) && name ~ "a""#) == ["u1", "u3"])
        #expect(try ids(#"age > 18 || (verified = true && name ~ "car")"#) == ["u1", "u3", "u4"])
    }

    @Test func requestAuthID() throws {
        #expect(try ids("owner = @request.auth.id", authID: "u1") == ["u1", "u4"])
        #expect(try ids("id = @request.auth.id || owner = @request.auth.id", authID: "u2") == ["u2"])
    }

    @Test func guestsCompareAsEmptyAsInPocketBase() throws {
        // A guest's @request.auth.id is NULL, which = treats like "": rows with no owner match.
        #expect(try ids("owner = @request.auth.id") == ["u2", "u3"])
        #expect(try ids(#"@request.auth.id != "" && owner = @request.auth.id"#) == [])
        #expect(try ids(#"@request.auth.id = """#) == ["u1", "u2", "u3", "u4"])
    }

    @Test func json() throws {
        #expect(try ids("meta = null") == ["u2", "u3", "u4"])
        #expect(try ids("meta != null") == ["u1"])
    }

    @Test func injectionIsJustAValue() throws {
        #expect(try ids(#"email = "x' OR 1=1 --""#) == [])
        #expect(try ids(#"name = "'; DROP TABLE users; --""#) == [])
        #expect(try ids(#"name ~ "%' OR '1'='1""#) == [])
        #expect(try ids("age > 0").count == 3)
    }

    @Test func sortOrder() throws {
        #expect(try ids("age != 0", sort: "-age,name") == ["u4", "u1", "u2", "u3"])
        #expect(try ids("age != 0", sort: "verified,-created") == ["u2", "u4", "u3", "u1"])
        #expect(try Set(ids("age != 0", sort: "@random")) == ["u1", "u2", "u3", "u4"])
    }
}

extension FilterValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .text(let text): return text.databaseValue
        case .int(let integer): return integer.databaseValue
        case .double(let real): return real.databaseValue
        case .bool(let bool): return bool.databaseValue
        case .null: return .null
        }
    }
}
