import AuthCore
import Foundation
import Logging
import PasswordStrength
import Secrets
import ServerSeam
import Store
import WebAuthn

/// Gatehouse's rules around the users' backend — every act's limits, audit trail and session
/// rules — and the only holder of the backend (the seam), the database, the limiter (`Budgets`)
/// and the audit trail's writer. Front-ends get this value and build operations from it
/// (`PasswordSignIn(env: accounts, via:)`, `MailedCodeChecks(env: accounts)`, …); its stored
/// parts stay internal to this module, so no front-end can reach around an operation. Built once
/// at start-up.
public struct Accounts: Sendable {
    /// Where the users are; its `admin` side serves the console (when `.userAdministration` is offered).
    let backend: any AuthAPI
    /// The backend as the pages use it to sign people in: its sessions back browser sessions.
    var pageBackend: any AuthAPI { backend.opening(for: .browserSession) }
    let database: AppDatabase
    /// The owner of every limit (`Budget`) and its counts.
    let budgets: Budgets
    let audit: AuditTrail
    /// Webhook endpoints, their secrets and the delivery worker.
    let webhooks: Webhooks
    /// Browser sessions: Gatehouse's own rows over the backend's sessions.
    public let sessions: BrowserSessions
    /// Superusers' console sessions.
    public let console: ConsoleSessions
    public let staffSignIn: StaffSignIn
    public let impersonationTickets: ImpersonationTickets
    /// Enchanted links opened and not yet taken by their app's poll (`EnchantedLinkSignIn`).
    let enchantedLinks: EnchantedLinkApprovals
    public let clock: @Sendable () -> Date
    /// Each account's own time (`AccountClocks`): what every per-account expiry reads.
    public let clocks: AccountClocks
    public let logger: Logger
    /// The one password rule, for the forms that check a new password before they submit it.
    public let passwordRules: PasswordRules
    /// How long a passkey ceremony's challenge may be answered.
    let passkeyChallengeLifetime: TimeInterval
    /// The ways a person may sign in (`--sign-in-methods`).
    public let signInMethods: Set<SignInMethod>
    /// The test controls' faults in force (`TestFaults`) and request ledger, in memory.
    public let faults = FaultBoard()
    public let requestLedger = RequestLedger()
    /// Whether staff must say why they impersonate (`--impersonation-reason`).
    public let impersonationReasonRule: ImpersonationReason.Rule

    /// - Parameters:
    ///   - rateLimits: whether the budgets hold (off only for load tests).
    ///   - sessionLifetime: how long a browser session lives after sign-in.
    ///   - webhookBox: seals webhook endpoints' secrets (a key derived from the key file).
    ///   - secureCookies: whether session cookies get `Secure` (people reach Gatehouse over TLS).
    public init(
        backend: any AuthAPI, database: AccountsDatabase, hasher: KeyedHash, passwords: PasswordHasher,
        rateLimits: Bool, sessionLifetime: TimeInterval, secureCookies: Bool,
        passwordRules: PasswordRules = .default, passkeyChallengeLifetime: TimeInterval = Ceremony.challengeLifetime,
        signInMethods: Set<SignInMethod> = Set(SignInMethod.allCases), webhookPolicy: WebhookPolicy = .standard,
        impersonationReasonRule: ImpersonationReason.Rule = .optional, webhookBox: SecretBox,
        clock: @escaping @Sendable () -> Date, logger: Logger
    ) {
        let database = database.database
        let clocks = AccountClocks(clock: clock, database: database)
        let budgets = Budgets(database: database, enabled: rateLimits, clocks: clocks, logger: logger, passwords: passwords)
        webhooks = Webhooks(database: database, box: webhookBox, policy: webhookPolicy, clock: clock, logger: logger)
        let audit = AuditTrail(database: database, clock: clock, logger: logger, webhooks: webhooks.delivery)
        self.backend = backend
        self.database = database
        self.budgets = budgets
        self.audit = audit
        let bindings = SessionBindings(database: database, backend: backend, hasher: hasher, clocks: clocks, logger: logger)
        sessions = BrowserSessions(bindings: bindings, lifetime: sessionLifetime, secureCookies: secureCookies)
        console = ConsoleSessions(bindings: bindings, audit: audit, secureCookies: secureCookies)
        staffSignIn = StaffSignIn(database: database, budgets: budgets, hasher: hasher, clock: clock, audit: audit)
        impersonationTickets = ImpersonationTickets(clock: clock)
        enchantedLinks = EnchantedLinkApprovals(clock: clock)
        self.clock = clock
        self.clocks = clocks
        self.logger = logger
        self.passwordRules = passwordRules
        self.passkeyChallengeLifetime = passkeyChallengeLifetime
        self.signInMethods = signInMethods
        self.impersonationReasonRule = impersonationReasonRule
    }

    /// Refuses a sign-in by `method` when `--sign-in-methods` turned it off (`SignInMethodOff`).
    func requireSignIn(by method: SignInMethod) throws(SignInMethodOff) {
        guard signInMethods.contains(method) else { throw SignInMethodOff(method: method) }
    }

    // What the users' backend offers, as front-ends ask it to decide which routes, controls and
    // mails to show.

    /// The acts the backend supports (`Capability`).
    public var capabilities: Set<Capability> { backend.capabilities }
    /// Whether the backend makes guest accounts (`GuestSignUp`): the embedded one.
    public var offersGuests: Bool { (try? backend.guestSignUps()) != nil }
    /// Whether sign-up and email change mail a code or a link.
    public var verificationMode: VerificationMode { backend.verificationMode }
    /// Whether an email change's confirmation asks for the account's password (PocketBase's does).
    public var confirmsEmailChangeWithPassword: Bool { backend.confirmsEmailChangeWithPassword }

    /// Starts what only a serving process needs beside requests: the webhook worker's look for events
    /// other processes (the command line) write. Owners used without a server (tests, the CLI) poll nothing.
    public func startBackgroundWork() async {
        await webhooks.delivery.watchOtherWriters()
    }

    /// Stops what runs beside requests (the webhook delivery worker); the server calls it once it
    /// stopped serving.
    public func stopBackgroundWork() async {
        await webhooks.delivery.stop()
    }
}
