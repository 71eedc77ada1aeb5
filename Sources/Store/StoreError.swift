/// Store failures callers can act on. Other SQLite errors propagate as GRDB's `DatabaseError`,
/// to be logged and answered with a plain 500; their text never reaches a user.
public enum StoreError: Error, Sendable, Equatable {
    /// A row in `secrets` holds a value of the wrong length (the file was edited by hand).
    case invalidSecret(name: String)
    /// A row just written could not be read back.
    case missingRow(String)
    /// A bulk insert found these addresses (as stored) already in use and wrote nothing.
    case emailsTaken([String])
    /// The database file could not be created or made private (`errno` from open/chmod).
    case unusableFile(path: String, errno: Int32)
}
