import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// Test users an app's test suite makes and removes through a management key (Descope's
/// `user/create/test`, `user/search/test`, `user/test/delete/all`): ordinary accounts carrying
/// Gatehouse's test mark — the tag `test`, shown in the console like every tag — so a suite can
/// find and delete its own users and never anyone else. Each act is audited with the key.
public struct TestUsers: Sendable {
    let env: Accounts
    /// Names the way in in the audit data ("descope-management").
    let via: String
    /// The key the suite acts with.
    public let key: ManagementKey

    public init(env: Accounts, via: String, key: ManagementKey) { (self.env, self.via, self.key) = (env, via, key) }

    /// The tag that marks a test user.
    public static let mark = "test"

    /// The audit data naming the way in and the key.
    var auditData: [String: JSONValue] { ["via": .string(via), "managementKey": .string(key.id)] }

    /// The test-user operations, acted by no superuser from the request's address.
    private func operations(_ request: Request) -> TestUserOperations {
        TestUserOperations(
            api: env.backend, database: env.database, audit: env.audit, clock: env.clock, actor: nil, ip: request.remoteAddress)
    }

    /// A new test user at `email` with no password anyone knows; `.emailExists` when the address
    /// has an account.
    public func create(email: String, name: String?, verified: Bool, request: Request) async throws -> User {
        try await operations(request).createOne(
            email: email, password: nil, name: name, verified: verified, tag: Self.mark, via: via,
            auditData: ["managementKey": .string(key.id)]
        ).user
    }

    /// The test user at `email`; nil when the address has no account or one without the mark.
    func testUser(email: String) async throws -> User? {
        guard let user = try await env.backend.admin.user(email: email),
            try await env.database.tags(of: [user.id])[user.id]?.contains(Self.mark) == true
        else { return nil }
        return user
    }

    /// One page (from 0) of test users, newest first: `limit` of them (0: 100, at most 500),
    /// only those at `emails` when it names any, matching `text` when given.
    public func search(emails: [String], text: String?, limit: Int, page: Int, request: Request) async throws -> [User] {
        await env.audit.record(.testUsersSearched, request: request, data: auditData)
        var ids = try await env.database.userIDs(taggedWith: Self.mark)
        if !emails.isEmpty {
            var named: Set<UserID> = []
            for email in emails {
                if let user = try await env.backend.admin.user(email: email) { named.insert(user.id) }
            }
            ids = ids.filter(named.contains)
        }
        guard !ids.isEmpty else { return [] }
        let query = UserQuery(search: text, page: page + 1, perPage: limit > 0 ? limit : 100, ids: ids)
        return try await env.backend.admin.listUsers(query).users
    }

    /// Deletes every test user (and ends their sessions); other accounts stay. How many there were.
    public func deleteAll(request: Request) async throws -> Int {
        let ids = try await env.database.userIDs(taggedWith: Self.mark)
        return try await operations(request).delete(ids, audit: auditData.merging(["tag": .string(Self.mark)]) { $1 })
    }
}
