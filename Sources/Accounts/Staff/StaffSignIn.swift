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
/// password), a right password of a superuser with TOTP on is a pending second step, never a
/// session — so no front-end can forget to ask for the code — and every refusal is recorded
/// (`console.sign_in.failed`, naming the front-end), whichever way in it came through.
public struct StaffSignIn: Sendable {
    let database: AppDatabase
    /// The try's admission and the hasher it checks passwords with (`budgets.passwords`).
    let budgets: Budgets
    /// Keys the superuser's authenticator key, recovery codes and pending second steps (`SecondFactorKeys`).
    let hasher: KeyedHash
    let clock: @Sendable () -> Date
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
        case signedIn(StaffMember)
        /// The password was right; the code must follow. `pending` is the signed pending step
        /// (`pendingStep(for:)`): the console's cookie, PocketBase's `mfaId`.
        case secondStep(StaffMember, pending: String)
        /// Refused (recorded, with its reason, as `console.sign_in.failed`).
        case refused
        case throttled(retryAfter: Int)
    }

    /// The password sign-in asked at `request` through the front-end `via` (nil for the console's form).
    public func attempt(email: String, password: String, request: Request, via: String?) async throws -> Outcome {
        let attempt = await budgets.beginPasswordTry(.staffSignIn, email: email, password: password, ip: request.remoteAddress)
        switch attempt.admission {
        case .throttled(let wait): return .throttled(retryAfter: wait)
        case .locked: return await refused("locked", email: email, request: request, via: via)
        case .open: break
        }
        guard let superuser = try await database.superuser(email: email).map(StaffMember.init) else {
            await budgets.passwords.dummyVerify(password)
            return await refused("unknown_superuser", email: email, request: request, via: via)
        }
        guard await budgets.passwords.verify(password, against: superuser.passwordHash) else {
            return await refused("wrong_password", email: email, request: request, via: via)
        }
        await budgets.settle(attempt, .right)
        guard try await keys.isOn(.superuser(superuser.id)) else { return .signedIn(superuser) }
        let pending = try await keys.startChallenge(for: .superuser(superuser.id), firstMethod: "password")
        return .secondStep(superuser, pending: pending.id)
    }

    private func refused(_ reason: String, email: String, request: Request, via: String?) async -> Outcome {
        await recordFailure(reason, email: email, via: via, request: request)
        return .refused
    }

    /// Records a refused sign-in or second step (`console.sign_in.failed`): why, the email typed
    /// when there is one, and which front-end asked when it is not the console's form.
    public func recordFailure(_ reason: String, email: String? = nil, via: String? = nil, request: Request) async {
        var data: [String: JSONValue] = ["reason": .string(reason)]
        if let email { data["email"] = .string(email) }
        await audit.record(.consoleSignInFailed, request: request, data: AuditTrail.data(data, via: via))
    }
}

/// A superuser's own two-step sign-in, by the owner of people's (`SecondFactorKeys`, on
/// `TOTPRules`): with an authenticator key enrolled (`/_/security`), the right password leads to a
/// pending second step asking for the code or one of the ten single-use recovery codes — its tries,
/// its lifetime and the superuser's wrong steps per hour counted as a person's are. The console
/// keeps the step's id in the `gh_console_mfa` cookie, the PocketBase API hands it out as the `mfaId`.
extension StaffSignIn {
    public static let secondStepLifetime = TOTPRules.stepLifetime

    public enum CodeOutcome {
        /// Signed in, with the second step it took (`.totp` or `.recoveryCode`), for the audit.
        case signedIn(StaffMember, SecondFactor.Method)
        /// Wrong, replayed or throttled: the form again.
        case wrong
        /// No valid pending step (missing, forged, expired or out of tries): sign in again.
        case dead
    }

    /// What a superuser typed at a second step: six digits are an authenticator code, anything
    /// else (up to 64 characters) a recovery code.
    public static func factor(_ typed: String) -> SecondFactor {
        let code = typed.filter { !$0.isWhitespace }
        if code.count == 6, code.allSatisfy({ $0.isASCII && $0.isNumber }) { return .totp(code: code) }
        return .recoveryCode(String(typed.prefix(64)))
    }

    /// Whether the superuser's authenticator app is on, and their unused recovery codes.
    public func totpStatus(_ superuser: StaffMember) async throws -> TOTPStatus {
        try await database.totpStatus(.superuser(superuser.id))
    }

    /// The superuser's authenticator key and recovery codes: the one owner people's are kept by too.
    private var keys: SecondFactorKeys { SecondFactorKeys(database: database, keyedHash: hasher, clock: clock) }

    /// Checks `factor` for the pending step `pending`; a code's step, or the recovery code, is spent.
    public func completeSecondStep(pending: String?, factor: SecondFactor) async throws -> CodeOutcome {
        guard let pending, !pending.isEmpty else { return .dead }
        switch try await keys.complete(challenge: pending, of: .superuser, with: factor) {
        case .dead: return .dead
        case .wrong: return .wrong
        case .passed(let holder, _):
            guard case .superuser(let id) = holder, let superuser = try await database.superuser(id: id).map(StaffMember.init)
            else { return .dead }
            return .signedIn(superuser, Self.method(of: factor))
        }
    }

    /// For `POST /_/api/auth`, which has no second form: the code (or a recovery code) comes with
    /// the password, as a pending step begun and tried at once. Nil when wrong.
    public func apiSecondStep(_ superuser: StaffMember, _ typed: String?) async throws -> SecondFactor.Method? {
        guard let typed else { return nil }
        let pending = try await keys.startChallenge(for: .superuser(superuser.id), firstMethod: "password")
        guard case .signedIn(_, let method) = try await completeSecondStep(pending: pending.id, factor: Self.factor(typed))
        else { return nil }
        return method
    }

    private static func method(of factor: SecondFactor) -> SecondFactor.Method {
        switch factor {
        case .totp: .totp
        case .recoveryCode: .recoveryCode
        case .emailOTP: .emailOTP
        }
    }

    /// The key shown for enrolment (`SecondFactorKeys.pendingKey`); nil when the app is on already.
    /// Only in a recent console sign-in (`StaffRecentSignIn`).
    public func beginEnrollment(_ staff: Staff) async throws -> TOTPSecret? {
        try StaffRecentSignIn.require(.addAuthenticatorApp, staff, now: clock())
        return try await keys.pendingKey(.superuser(staff.superuser.id))
    }

    /// Turns TOTP on with a first right code for the fresh pending key, audited as
    /// `console.totp.enabled`. Returns the recovery codes, shown once; nil when the code was wrong
    /// or the key expired. Only in a recent console sign-in, as the start.
    public func confirmEnrollment(_ staff: Staff, code: String, request: Request) async throws -> [String]? {
        try StaffRecentSignIn.require(.addAuthenticatorApp, staff, now: clock())
        let superuser = staff.superuser
        guard case .enabled(let codes) = try await keys.confirm(.superuser(superuser.id), code: code) else { return nil }
        await audit.record(.consoleTOTPEnabled, actor: superuser.id, request: request)
        return codes
    }

    /// New recovery codes after the password again (the old ones stop working), audited as
    /// `console.totp.recovery_codes_regenerated`. Nil when the password was wrong or TOTP is off.
    public func regenerateRecoveryCodes(_ superuser: StaffMember, password: String, request: Request) async throws
        -> [String]?
    {
        guard try await reauthenticate(superuser, password: password, request: request) == nil else { return nil }
        guard let codes = try await keys.regenerateRecoveryCodes(.superuser(superuser.id)) else { return nil }
        await audit.record(.consoleRecoveryCodesRegenerated, actor: superuser.id, request: request)
        return codes
    }

    /// Turns it off after the password again (throttled like the console sign-in), audited as
    /// `console.totp.disabled`; the key and the recovery codes go.
    public func disableTOTP(_ superuser: StaffMember, password: String, request: Request) async throws -> Bool {
        guard try await reauthenticate(superuser, password: password, request: request) == nil else { return false }
        try await keys.disable(.superuser(superuser.id))
        await audit.record(.consoleTOTPDisabled, actor: superuser.id, request: request)
        return true
    }

    /// The password again, as one admitted try (`Budgets.withPasswordTry`, as people's re-checks):
    /// nil when it was right, else why not.
    func reauthenticate(_ superuser: StaffMember, password: String, request: Request) async throws
        -> PasswordRefusal?
    {
        let result = try await budgets.withPasswordTry(
            .staffReauthentication, email: superuser.email, password: password, ip: request.remoteAddress
        ) {
            guard await budgets.passwords.verify(password, against: superuser.passwordHash) else {
                throw AuthError.invalidCredentials
            }
        }
        return result.refusal
    }
}
