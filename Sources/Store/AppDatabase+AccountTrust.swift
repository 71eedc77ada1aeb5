import AuthCore
import Foundation
import GRDB

/// How the owner proved an account's address, which decides what the first proof keeps.
enum AddressProof {
    /// The code or link of a verification mail: what stays is what its `binding` names — the
    /// sign-up's own mail keeps the credentials the account was made with, an app's backend's also
    /// the sessions live when it asked; a resend anyone could ask for keeps nothing.
    case verificationMail(VerificationTokenRecord)
    /// A mailed reset (the new password is the proof's own).
    case reset
    /// A mailed sign-in code or link.
    case signInMail
    /// A live provider vouching for this very address.
    case provider

    /// The audit's name of the proof.
    var name: String {
        switch self {
        case .verificationMail: "verification"
        case .reset: "reset"
        case .signInMail: "sign_in_mail"
        case .provider: "provider"
        }
    }
}

extension AppDatabase {
    /// The store's half of account trust (`Accounts/AccountTrust`), inside the proof's own
    /// transaction so every way in that proves an address gets it: the account is proven, and on
    /// the first proof of an account a sign-up made (`provisional_accounts`) everything it held
    /// meanwhile — password, passkeys, authenticator app, sessions of every kind but impersonations
    /// — ends unless bound to `proof`; links made on an unproven claim end on any proof. One
    /// `account.proven` row lists what ended and what was kept. Returns whether this was the first proof.
    @discardableResult
    static func proveAddress(_ db: Database, userID: UserID, by proof: AddressProof, at now: Date) throws -> Bool {
        try db.execute(sql: "DELETE FROM provisional_accounts WHERE user_id = ?", arguments: [userID.rawValue])
        let first = db.changesCount == 1
        var keepsCredentials = false
        var boundSessionsCreatedBy: Date?
        if case .verificationMail(let token) = proof, token.binding != .none {
            // The mail stood for the account as it was made: its password and passkeys stay.
            keepsCredentials = true
            if token.binding == .app { boundSessionsCreatedBy = token.createdAt }
        }
        let hasPassword =
            try Bool.fetchOne(
                db, sql: "SELECT password_hash IS NOT NULL FROM users WHERE id = ?", arguments: [userID.rawValue]) ?? false
        let endsPassword = first && !keepsCredentials && hasPassword
        try db.execute(
            sql: """
                UPDATE users SET verified = 1, password_hash = CASE WHEN ? THEN NULL ELSE password_hash END, updated_at = ?
                WHERE id = ? AND (verified = 0 OR ?)
                """, arguments: [endsPassword, now.storedText, userID.rawValue, endsPassword])
        var ended: [String: JSONValue] = [:]
        var kept: [String: JSONValue] = [:]
        let links = try endUnvouchedLinks(db, userID: userID)
        if !links.isEmpty { ended["links"] = .array(links.map(JSONValue.string)) }
        guard first || !links.isEmpty else { return false }
        if first {
            let passkeys =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM passkeys WHERE user_id = ?", arguments: [userID.rawValue]) ?? 0
            if keepsCredentials {
                if hasPassword { kept["password"] = .bool(true) }
                if passkeys > 0 { kept["passkeys"] = .number(Double(passkeys)) }
            } else {
                try db.execute(sql: "DELETE FROM passkeys WHERE user_id = ?", arguments: [userID.rawValue])
                if hasPassword { ended["password"] = .bool(true) }
                if passkeys > 0 { ended["passkeys"] = .number(Double(passkeys)) }
            }
            try db.execute(sql: "DELETE FROM totp_credentials WHERE user_id = ?", arguments: [userID.rawValue])
            if db.changesCount > 0 { ended["authenticator_app"] = .bool(true) }
            try db.execute(sql: "DELETE FROM recovery_codes WHERE user_id = ?", arguments: [userID.rawValue])
        }
        let (endedSessions, keptSessions) = try endProvisionalSessions(
            db, userID: userID, keeping: boundSessionsCreatedBy, at: now)
        if endedSessions > 0 { ended["sessions"] = .number(Double(endedSessions)) }
        if keptSessions > 0 { kept["sessions"] = .number(Double(keptSessions)) }
        try recordAudit(
            NewAuditEvent(
                type: "account.proven", subject: userID.rawValue,
                data: ["proof": .string(proof.name), "first": .bool(first), "ended": .object(ended), "kept": .object(kept)],
                at: now), in: db)
        return first
    }

    /// Marks an account a sign-up just made, whose address nobody has proven, as provisional.
    static func markProvisional(_ db: Database, _ user: UserRecord) throws {
        guard !user.verified else { return }
        try db.execute(sql: "INSERT INTO provisional_accounts (user_id) VALUES (?)", arguments: [user.id.rawValue])
    }

    /// Revokes the account's live sessions but impersonations and, when `boundBy` is set, those
    /// made by then; returns how many ended and how many bound ones were kept.
    private static func endProvisionalSessions(
        _ db: Database, userID: UserID, keeping boundBy: Date?, at now: Date
    ) throws -> (ended: Int, kept: Int) {
        let live = "user_id = ? AND revoked_at IS NULL AND expires_at > ? AND impersonator IS NULL"
        var kept = 0
        if let boundBy {
            kept =
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM sessions WHERE \(live) AND created_at <= ?",
                    arguments: [userID.rawValue, now.storedText, boundBy.storedText]) ?? 0
        }
        try db.execute(
            sql: "UPDATE sessions SET revoked_at = ? WHERE \(live) AND (? IS NULL OR created_at > ?)",
            arguments: [now.storedText, userID.rawValue, now.storedText, boundBy?.storedText, boundBy?.storedText])
        return (db.changesCount, kept)
    }

    /// Deletes the links made while nobody had proven the account's address (a pre-hijacker's, made
    /// on a claim to someone else's address); returns each as `provider:subject`.
    private static func endUnvouchedLinks(_ db: Database, userID: UserID) throws -> [String] {
        let links = try Row.fetchAll(
            db, sql: "SELECT provider, subject FROM external_auths WHERE user_id = ? AND email_vouched = 0",
            arguments: [userID.rawValue])
        guard !links.isEmpty else { return [] }
        try db.execute(
            sql: "DELETE FROM external_auths WHERE user_id = ? AND email_vouched = 0", arguments: [userID.rawValue])
        return try links.map { row in try row.string("provider") + ":" + row.string("subject") }
    }

    /// The address of the account a live "this wasn't me" token (`secretHash`) names while nobody
    /// has proven it; nil for an unknown, spent or expired token (in its account's time, by
    /// `clock`: `now(for:clock:)`), or an account proven since.
    public func disownableAccount(secretHash: String, clock: @escaping @Sendable () -> Date) async throws -> String? {
        try await pool.read { db in try self.disownable(db, secretHash: secretHash, clock: clock)?.email }
    }

    /// Removes the account a live "this wasn't me" token names while nobody has proven its address:
    /// its sessions end and the account goes, with all it held, in one transaction. Its address, or
    /// nil when the token names no such account (nothing is changed then).
    public func disownAccount(secretHash: String, clock: @escaping @Sendable () -> Date) async throws -> String? {
        try await pool.write { db in
            guard let (userID, email) = try self.disownable(db, secretHash: secretHash, clock: clock) else { return nil }
            try Self.revokeSessions(of: userID, at: self.now(for: userID, clock: clock), in: db)
            try db.execute(sql: "DELETE FROM users WHERE id = ?", arguments: [userID.rawValue])
            return email
        }
    }

    private func disownable(_ db: Database, secretHash: String, clock: () -> Date) throws -> (id: UserID, email: String)? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT u.id, u.email, t.expires_at FROM verification_tokens t
                    JOIN provisional_accounts p ON p.user_id = t.user_id JOIN users u ON u.id = t.user_id
                    WHERE t.kind = 'link' AND t.purpose = ? AND t.secret_hash = ? AND t.consumed_at IS NULL
                    """, arguments: [VerificationTokenRecord.Purpose.disown, secretHash])
        else { return nil }
        let userID = UserID(try row.string("id"))
        guard try row.date("expires_at") > now(for: userID, clock: clock) else { return nil }
        return (userID, try row.string("email"))
    }
}
