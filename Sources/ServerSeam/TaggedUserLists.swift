import AuthCore

/// An admin side whose accounts live in Gatehouse's own store, beside the console's test-user tags:
/// it lists the accounts carrying a tag in one query, however many carry it. Any other admin side
/// is handed the tag's accounts as `UserQuery.ids` (a remote backend cannot read the tags).
public protocol TaggedUserLists: Sendable {
    /// One page of `query`, among the accounts tagged `tag` only.
    func listUsers(_ query: UserQuery, taggedWith tag: String) async throws -> UserPage
}
