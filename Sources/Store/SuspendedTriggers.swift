import GRDB

/// Triggers dropped for part of one write transaction and created again, from their own
/// `sqlite_master` text, before it commits: for bulk writes that do a trigger's per-row work once
/// for the whole set. Readers and every later write see the schema unchanged; if anything in
/// between fails, the rollback brings the triggers back with the rows.
struct SuspendedTriggers {
    /// The `CREATE TRIGGER` statements as the migrations wrote them.
    private let definitions: [String]

    /// Drops `names`; a trigger that is not there throws rather than being skipped, so a renamed
    /// trigger fails the write instead of firing per row unnoticed.
    init(_ names: [String], in db: Database) throws {
        definitions = try String.fetchAll(
            db,
            sql: """
                SELECT sql FROM sqlite_master
                WHERE type = 'trigger' AND name IN (\(databaseQuestionMarks(count: names.count))) ORDER BY name
                """,
            arguments: StatementArguments(names))
        for name in names {
            try db.execute(sql: "DROP TRIGGER \(name)")
        }
    }

    /// Creates the dropped triggers again, exactly as they were defined.
    func restore(in db: Database) throws {
        for definition in definitions {
            try db.execute(sql: definition)
        }
    }
}
