import AuthCore

/// What a read made for a signed-in call found: the account behind the live session — its id,
/// and whether it is disabled, which the caller refuses — and `value`, read in the statement
/// that checked the session (one read transaction, not a check and then a read).
public struct SessionOwned<Value: Sendable>: Sendable {
    public let userID: UserID
    public let disabled: Bool
    public let value: Value

    init(userID: UserID, disabled: Bool, value: Value) {
        (self.userID, self.disabled, self.value) = (userID, disabled, value)
    }

    /// The account's id and disabled flag as `activeSessionAccount` selects them for every such
    /// read (named apart from the joined tables' `id`).
    static var columns: String { "u.id AS owner_id, u.disabled AS owner_disabled" }

    init(_ row: some ColumnValues, _ value: Value) throws {
        self.init(userID: UserID(try row.string("owner_id")), disabled: try row.bool("owner_disabled"), value: value)
    }
}
