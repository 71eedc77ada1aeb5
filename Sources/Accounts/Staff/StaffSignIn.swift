import AuthCore
import Foundation
import HTTPServer
import Secrets
import Store
import TwoFactor

/// A superuser's password sign-in, the one owner every way in goes through (console form,
/// `/_/api/auth`, PocketBase's `_superusers/auth-with-password`): the same throttling and
/// equal-cost rules as user sign-in (`Budgets.beginPasswordTry`, admitted before the hash; unknown
/// emails and a locked (account, source) pair cost the dummy hash and answer like a wrong
/// password), and a right password of a superuser with TOTP on is a pending
/// second step, never a session — so no front-end can forget to ask for the code.
public struct StaffSignIn: Sendable {
    let database: AppDatabase
    /// The try's admission and the hasher it checks passwords with (`budgets.passwords`).
    let budgets: Budgets
    /// Signs the pending second step's cookie and derives the key that seals superusers' TOTP keys.
    public let hasher: KeyedHash
    public let clock: @Sendable () -> Date
    /// Where refused sign-ins and a superuser's own TOTP changes are recorded.
    let audit: AuditTrail

    init(
        database: AppDatabase, budgets: Budgets, hasher: KeyedHash, clock: @escaping @Sendable () -> Date, audit: AuditTrail
    ) {
        self.database = database
        self.budgets = budgets
        self.hasher = hasher
        self.clock = clock
        self.audit = audit
    }

    public enum Outcome {
        /// The password was right and the superuser has no second step: start a session.
        case signedIn(SuperuserRecord)
        /// The password was right; the code must follow. `pending` is the signed pending step
        /// (`pendingStep(for:)`): the console's cookie, PocketBase's `mfaId`.
        case secondStep(SuperuserRecord, pending: String)
        case refused(reason: String)
        case throttled(retryAfter: Int)
    }

    public func attempt(email: String, password: String, from ip: String) async throws -> Outcome {
        let attempt = await budgets.beginPasswordTry(.staffSignIn, email: email, password: password, ip: ip)
        switch attempt.admission {
        case .throttled(let wait): return .throttled(retryAfter: wait)
        case .locked: return .refused(reason: "locked")
        case .open: break
        }
        guard let superuser = try await database.superuser(email: email) else {
            await budgets.passwords.dummyVerify(password)
            return .refused(reason: "unknown_superuser")
        }
        guard await budgets.passwords.verify(password, against: superuser.passwordHash) else {
            return .refused(reason: "wrong_password")
        }
        await budgets.settle(attempt, .right)
        guard try await hasTOTP(superuser) else { return .signedIn(superuser) }
        return .secondStep(superuser, pending: pendingStep(for: superuser))
    }

    /// Records a refused sign-in or second step (`console.sign_in.failed`): why, the email typed
    /// when there is one, and which front-end asked when it is not the console's form.
    public func recordFailure(_ reason: String, email: String? = nil, via: String? = nil, request: Request) async {
        var data: [String: JSONValue] = ["reason": .string(reason)]
        if let email { data["email"] = .string(email) }
        await audit.record(.consoleSignInFailed, request: request, data: AuditTrail.data(data, via: via))
    }
}

/// A superuser's own two-step sign-in: with an authenticator key enrolled (`/_/security`), the
/// right password leads to a second form asking for the code. The pending step is a signed value
/// (superuser, expiry, nonce, keyed MAC) that lives five minutes and five tries: the console keeps
/// it in the `gh_console_mfa` cookie, the PocketBase API hands it out as the `mfaId`.
extension StaffSignIn {
    public static let secondStepLifetime: TimeInterval = 5 * 60

    public enum CodeOutcome {
        case signedIn(SuperuserRecord)
        /// Wrong, replayed or throttled: the form again.
        case wrong
        /// No valid pending step (missing, forged, expired or out of tries): sign in again.
        case dead
    }

    /// Whether the superuser has an authenticator key on.
    public func hasTOTP(_ superuser: SuperuserRecord) async throws -> Bool {
        try await database.superuserTOTPSecret(id: superuser.id) != nil
    }

    /// The signed pending step for a superuser whose password was right.
    private func pendingStep(for superuser: SuperuserRecord) -> String {
        let expires = Int(clock().addingTimeInterval(Self.secondStepLifetime).timeIntervalSince1970)
        let body = "\(superuser.id).\(expires).\(SecureRandom.token())"
        return body + "." + hasher.hex("console-mfa:" + body)
    }

    /// Checks the code for the pending step `pending`; the code's step is spent (no replay).
    public func completeSecondStep(pending: String?, code: String) async throws -> CodeOutcome {
        let parts = (pending ?? "").split(separator: ".").map(String.init)
        guard parts.count == 4, let expires = TimeInterval(parts[1]) else { return .dead }
        let body = parts[0...2].joined(separator: ".")
        let now = clock()
        guard KeyedHash.constantTimeEquals(hasher.hex("console-mfa:" + body), parts[3]),
            now.timeIntervalSince1970 < expires,
            let superuser = try await database.superuser(id: parts[0])
        else { return .dead }
        if await budgets.take(.staffSecondSteps(parts[2])) != nil { return .dead }
        return try await codeMatches(superuser, code) ? .signedIn(superuser) : .wrong
    }

    /// For `POST /_/api/auth`, which has no second form: the code comes with the password, at most
    /// five tries per superuser in five minutes.
    public func apiCodeMatches(_ superuser: SuperuserRecord, _ code: String?) async throws -> Bool {
        guard let code else { return false }
        if await budgets.take(.staffSecondSteps("superuser:\(superuser.id)")) != nil { return false }
        return try await codeMatches(superuser, code)
    }

    /// A right code whose step is newer than the last one used (which it then becomes).
    private func codeMatches(_ superuser: SuperuserRecord, _ code: String) async throws -> Bool {
        guard let sealed = try await database.superuserTOTPSecret(id: superuser.id),
            let step = TOTP().matchingStep(code, secret: try openSecret(sealed).bytes, at: clock())
        else { return false }
        return try await database.claimSuperuserTOTPStep(id: superuser.id, step: step)
    }

    /// The key shown for enrolment: the pending one when there is one, else a new one kept pending.
    public func beginEnrollment(_ superuser: SuperuserRecord) async throws -> TOTPSecret {
        if let pending = try await database.superuserPendingTOTPSecret(id: superuser.id), let secret = try? openSecret(pending) {
            return secret
        }
        let secret = TOTPSecret()
        try await database.setSuperuserPendingTOTPSecret(id: superuser.id, sealed: try box().seal(secret.base32))
        return secret
    }

    /// Turns TOTP on with a first right code for the pending key, audited as `console.totp.enabled`.
    public func confirmEnrollment(_ superuser: SuperuserRecord, code: String, request: Request) async throws -> Bool {
        let now = clock()
        guard let pending = try await database.superuserPendingTOTPSecret(id: superuser.id),
            let step = TOTP().matchingStep(code, secret: try openSecret(pending).bytes, at: now),
            try await database.enableSuperuserTOTP(id: superuser.id, pendingSealed: pending, step: step, at: now)
        else { return false }
        await audit.record(.consoleTOTPEnabled, actor: superuser.id, request: request)
        return true
    }

    /// Turns it off after the password again (throttled like the console sign-in), audited as
    /// `console.totp.disabled`.
    public func disableTOTP(_ superuser: SuperuserRecord, password: String, request: Request) async throws -> Bool {
        let attempt = await budgets.beginPasswordTry(
            .staffReauthentication, email: superuser.email, password: password, ip: request.remoteAddress)
        guard attempt.admission == .open, await budgets.passwords.verify(password, against: superuser.passwordHash) else {
            return false
        }
        await budgets.settle(attempt, .right)
        try await database.disableSuperuserTOTP(id: superuser.id, at: clock())
        await audit.record(.consoleTOTPDisabled, actor: superuser.id, request: request)
        return true
    }

    private func box() throws -> SecretBox { try SecretBox(key: hasher.derivedKey(for: "console-totp-secrets")) }

    private func openSecret(_ sealed: [UInt8]) throws -> TOTPSecret {
        guard let secret = TOTPSecret(base32: try box().open(sealed)) else { throw SecretsError.openFailed }
        return secret
    }
}
