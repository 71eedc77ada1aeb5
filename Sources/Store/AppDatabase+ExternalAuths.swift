import AuthCore
import Foundation
import GRDB

extension AppDatabase {
    /// One link by its id, whoever it belongs to.
    public func externalAuth(id: String) async throws -> ExternalAuth? {
        guard let rowID = Int64(id) else { return nil }
        return try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM external_auths WHERE id = ?", arguments: [rowID]).map(Self.externalAuth)
        }
    }

    public func externalAuths(userID: UserID) async throws -> [ExternalAuth] {
        // The console's user page lists them (a signed-in person's own come with the session check,
        // `activeSessionExternalAuths`): read on the calling thread.
        try hotReads.read { connection in
            try connection.rows(
                "SELECT * FROM external_auths WHERE user_id = ? ORDER BY id", [.text(userID.rawValue)], Self.externalAuth)
        }
    }

    /// The linked identities of the account behind a live session, oldest first, read in the
    /// statement that checks the session (account pages and Descope's `me` list them every call).
    public func activeSessionExternalAuths(tokenHash: String, now: Date) async throws -> SessionOwned<[ExternalAuth]>? {
        let rows = try hotReads.read { connection in
            try connection.rows(
                Self.activeSessionAccount(
                    adding: "e.id, e.user_id, e.provider, e.subject, e.email, e.created_at",
                    joining: "LEFT JOIN external_auths e ON e.user_id = u.id") + " ORDER BY e.id",
                Self.activeSessionArguments(tokenHash, now, nil)
            ) { row in
                // An account without links is one row whose link columns are NULL.
                try SessionOwned(row, try row.optionalInt64("id") == nil ? nil : try Self.externalAuth(row))
            }
        }
        guard let first = rows.first else { return nil }
        return SessionOwned(userID: first.userID, disabled: first.disabled, value: rows.compactMap(\.value))
    }

    /// The linked identities of each of these users in one read (a page of the console's list).
    public func externalAuths(userIDs: [UserID]) async throws -> [UserID: [ExternalAuth]] {
        guard !userIDs.isEmpty else { return [:] }
        return try await pool.read { db in
            var result: [UserID: [ExternalAuth]] = [:]
            for chunk in userIDs.map(\.rawValue).chunked(Self.keysPerStatement) {
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT * FROM external_auths WHERE user_id IN (\(databaseQuestionMarks(count: chunk.count)))
                        ORDER BY id
                        """, arguments: StatementArguments(chunk))
                for link in try rows.map(Self.externalAuth) { result[link.userID, default: []].append(link) }
            }
            return result
        }
    }

    private static func externalAuth(_ row: some ColumnValues) throws -> ExternalAuth {
        ExternalAuth(
            id: String(try row.int64("id")), userID: UserID(try row.string("user_id")), provider: try row.string("provider"),
            providerID: try row.string("subject"), createdAt: try row.date("created_at"), email: try row.optionalString("email"))
    }

    /// Resolves a provider sign-in in one write transaction (so two concurrent first sign-ins
    /// cannot create two accounts): the account linked by a link made the same way (test provider
    /// or live); else the account with the same address when both sides have it verified, linking
    /// it; else `newUser` when given, linked. A live link's subject typed at the test chooser
    /// (or the reverse) finds no link and cannot make a second one: `.alreadyLinked`.
    public func signInExternal(_ identity: ExternalIdentity, newUser: UserRecord?, at now: Date)
        async throws -> (UserRecord, ExternalSignIn.Outcome)
    {
        try await pool.write { db in
            if let userID = try String.fetchOne(
                db, sql: "SELECT user_id FROM external_auths WHERE provider = ? AND subject = ? AND test_provider = ?",
                arguments: [identity.provider, identity.subject, identity.fromTestProvider])
            {
                guard let user = try UserRecord.fetchOne(db, key: userID) else { throw AuthError.userNotFound }
                return (user, .existingLink)
            }
            if let email = identity.email,
                let existing = try UserRecord.filter(UserRecord.CodingKeys.emailNormalized == EmailAddress.normalize(email))
                    .fetchOne(db)
            {
                // Pre-hijacking defence: the provider must vouch for this very address and be one
                // whose word counts (never the test provider). An account nobody had proven is
                // proven now, and what it held on the unproven claim ends (`proveAddress`).
                guard Self.providerVouches(identity, for: existing.emailNormalized) else {
                    throw ExternalAuthError.emailBelongsToAnotherAccount
                }
                var user = existing
                if !existing.verified {
                    try Self.proveAddress(db, userID: existing.id, by: .provider, at: now)
                    user = try UserRecord.fetchOne(db, key: existing.id.rawValue) ?? existing
                }
                try Self.insertLink(db, userID: user.id, identity: identity, vouched: true, at: now)
                return (user, .linkedByVerifiedEmail)
            }
            guard let newUser else { throw ExternalAuthError.signUpClosed }
            try newUser.insert(db)
            try Self.markProvisional(db, newUser)
            try Self.insertLink(
                db, userID: newUser.id, identity: identity,
                vouched: Self.providerVouches(identity, for: newUser.emailNormalized), at: now)
            return (newUser, .created)
        }
    }

    /// Links an identity to an account; `.alreadyLinked` when either UNIQUE constraint refuses.
    public func linkExternal(_ identity: ExternalIdentity, to userID: UserID, at now: Date) async throws -> ExternalAuth {
        try await pool.write { db in
            guard let user = try UserRecord.fetchOne(db, key: userID.rawValue) else { throw AuthError.userNotFound }
            try Self.insertLink(
                db, userID: userID, identity: identity,
                vouched: user.verified || Self.providerVouches(identity, for: user.emailNormalized), at: now)
            return ExternalAuth(
                id: String(db.lastInsertedRowID), userID: userID, provider: identity.provider,
                providerID: identity.subject, createdAt: now, email: identity.email)
        }
    }

    /// Removes a link unless it is the account's last way to sign in (no password, no other link).
    public func unlinkExternal(provider: String, from userID: UserID) async throws {
        try await pool.write { db in
            guard let user = try UserRecord.fetchOne(db, key: userID.rawValue) else { throw AuthError.userNotFound }
            let links = try String.fetchAll(
                db, sql: "SELECT provider FROM external_auths WHERE user_id = ?",
                arguments: [userID.rawValue])
            guard links.contains(provider) else { throw ExternalAuthError.notLinked }
            guard user.passwordHash != nil || links.count > 1 else { throw ExternalAuthError.lastSignInMethod }
            try db.execute(
                sql: "DELETE FROM external_auths WHERE user_id = ? AND provider = ?",
                arguments: [userID.rawValue, provider])
        }
    }

    /// Whether a live provider vouched for this very address (the test chooser's "verified" tick
    /// vouches for nothing).
    private static func providerVouches(_ identity: ExternalIdentity, for emailNormalized: String) -> Bool {
        guard !identity.fromTestProvider, identity.emailVerified, let email = identity.email else { return false }
        return EmailAddress.normalize(email) == emailNormalized
    }

    /// `vouched`: whether the account's address was proven (by Gatehouse or the provider) when
    /// the link was made; see `proveAddress`.
    private static func insertLink(
        _ db: Database, userID: UserID, identity: ExternalIdentity, vouched: Bool, at now: Date
    ) throws {
        do {
            try db.execute(
                sql: """
                    INSERT INTO external_auths (user_id, provider, subject, email, email_vouched, test_provider, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    userID.rawValue, identity.provider, identity.subject, identity.email, vouched,
                    identity.fromTestProvider, now.storedText
                ])
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw ExternalAuthError.alreadyLinked
        }
    }
}
