import AuthCore
import HTTPServer
import ServerSeam

/// Where an API's contract departs from the pages' defaults, declared once here as a policy of
/// that way in rather than as a copy of a rule in its folder. Owners (`SignUp`, `PasswordSignIn`)
/// take it; the front-end names its policy and nothing else. README's "Departures" lists them.
public struct WayInPolicy: Sendable, Equatable {
    /// An unverified account may hold a session: password sign-up answers with a session at once
    /// (Gatehouse mails no verification; the account stays unverified while addresses are
    /// verified) and password sign-in admits it. The app's own verification decides what such an
    /// account may do.
    let sessionsBeforeVerification: Bool
    /// Sign-in by mailed code or link creates a missing account (the route itself asks for it),
    /// whatever `--passwordless-sign-up` says; a spent code or link marks the address verified
    /// (as it does on every way in).
    public let passwordlessCreatesAccounts: Bool
    /// A live session is proof enough to move the account to a new address: no password is asked
    /// when the change is requested nor when the code or link mailed to the new address confirms it.
    /// The pages (and the PocketBase API) confirm every change with the account's password.
    let emailChangeProvenBySession: Bool
    /// A passkey is added to an account only in a recent sign-in (`RecentSignIn`), as on the pages.
    /// Descope's `webauthn/update` takes its refresh JWT, of any age, as the proof.
    let newPasskeysNeedRecentSignIn: Bool
    /// What becomes of a new account's verification mail where the account must verify first
    /// (`SignUp`); an account that may hold a session at once is mailed nothing either way.
    let signUpMail: SignUpMail
    /// Sign-in codes and links to one address wait out the one-minute cool-down between mails.
    /// SuperTokens' core keeps none (its prebuilt UI offers a resend after 15 s): there only the
    /// hourly cap per address holds.
    let signInMailsCoolDown: Bool
    /// The caller is an app's own backend, whose address is every one of its users': a source's
    /// budgets (sign-ups, password tries) are counted per account (the address signed up or in)
    /// instead, so one person's wrong passwords lock no other user out and the app's sign-ups are
    /// not capped by its address.
    let budgetsPerAccount: Bool
    /// A session may set a new password without the current one (Descope's `password/update` on
    /// its refresh JWT, after a sign-in by mailed link), within the recent-sign-in window like
    /// every way in a session adds on its own word (`RecentSignIn`).
    let passwordSetBySession: Bool
    /// A session may turn the authenticator app off without the password (SuperTokens' FDI
    /// `totp/device/remove`, whose frontend asks for none), within the recent-sign-in window
    /// (`RecentSignIn`). The pages confirm it with the password.
    let authenticatorRemovedBySession: Bool

    init(
        sessionsBeforeVerification: Bool, passwordlessCreatesAccounts: Bool, emailChangeProvenBySession: Bool = false,
        newPasskeysNeedRecentSignIn: Bool = true, signUpMail: SignUpMail = .startsCooldown,
        signInMailsCoolDown: Bool = true, budgetsPerAccount: Bool = false, passwordSetBySession: Bool = false,
        authenticatorRemovedBySession: Bool = false
    ) {
        self.signInMailsCoolDown = signInMailsCoolDown
        self.sessionsBeforeVerification = sessionsBeforeVerification
        self.passwordlessCreatesAccounts = passwordlessCreatesAccounts
        self.emailChangeProvenBySession = emailChangeProvenBySession
        self.newPasskeysNeedRecentSignIn = newPasskeysNeedRecentSignIn
        self.signUpMail = signUpMail
        self.budgetsPerAccount = budgetsPerAccount
        self.passwordSetBySession = passwordSetBySession
        self.authenticatorRemovedBySession = authenticatorRemovedBySession
    }

    /// The sign-up's own verification mail, as each vendor sends it.
    enum SignUpMail: Sendable, Equatable {
        /// Mailed at once, and the address's first verification mail: its cool-down
        /// (`Budget.verificationMailsTo`) starts (the pages).
        case startsCooldown
        /// Mailed at once, outside the cool-down, which starts with the app's first explicit
        /// request (InsForge: its SDK calls `send-verification` right after `signUp`).
        case outsideCooldown
        /// Not mailed: the app asks for it, and only its requests meet the cool-down (PocketBase's
        /// `records` create mails nothing; the app calls `request-verification`).
        case notSent
    }

    /// The pages: the server's flags decide.
    public static let serverDefaults = WayInPolicy(sessionsBeforeVerification: false, passwordlessCreatesAccounts: false)
    /// PocketBase's API: the server's flags, and a guest's `records` create mails nothing (as
    /// PocketBase 0.40 does); the app's `request-verification` sends the first mail.
    public static let pocketBaseAPI = WayInPolicy(
        sessionsBeforeVerification: false, passwordlessCreatesAccounts: false, signUpMail: .notSent)
    /// InsForge's API: the server's flags, and the sign-up's mail leaves the address's cool-down to
    /// start with the first `send-verification` (as InsForge's per-email cool-down does).
    public static let insForgeAPI = WayInPolicy(
        sessionsBeforeVerification: false, passwordlessCreatesAccounts: false, signUpMail: .outsideCooldown)
    /// Descope's API: password `signup` answers with JWTs at once (`verifiedEmail: false`), OTP or
    /// magic-link `signup`/`signup-in` create the account, `update/email` takes the refresh JWT as
    /// the proof (the code or link to the new address confirms it), and so does `webauthn/update`;
    /// `password/update` sets a password on a recent refresh JWT.
    public static let descopeAPI = WayInPolicy(
        sessionsBeforeVerification: true, passwordlessCreatesAccounts: true, emailChangeProvenBySession: true,
        newPasskeysNeedRecentSignIn: false, passwordSetBySession: true)
    /// SuperTokens' core: emailpassword `signup` makes an unverified user that may hold a session
    /// (the app's email-verification recipe decides), passwordless `signinup` creates the account,
    /// a code is resent at the UI's pace (no cool-down; the hourly cap stays), and its caller is the
    /// app's backend, so its budgets are per account.
    public static let superTokensCore = WayInPolicy(
        sessionsBeforeVerification: true, passwordlessCreatesAccounts: true, signInMailsCoolDown: false,
        budgetsPerAccount: true)

    /// SuperTokens' frontend API (FDI), which people's own devices call: emailpassword `signup`
    /// answers with a session at once (the `st-ev` claim tells the app the address is unproven)
    /// and passwordless `signinup` creates the account; `totp/device/remove` takes a recent session
    /// as the proof. The budgets and the cool-down between mails are the caller's, as on the pages.
    public static let superTokensFrontend = WayInPolicy(
        sessionsBeforeVerification: true, passwordlessCreatesAccounts: true, authenticatorRemovedBySession: true)

    /// Whose count a source's budget is for an act on `account` asked by `request`: the caller's
    /// address, or — `budgetsPerAccount` — the account's.
    func source(of request: Request, account: String) -> String {
        budgetsPerAccount ? "account:" + EmailAddress.normalize(account) : request.remoteAddress
    }

    /// `backend` as a way in under this policy uses it.
    func applied(to backend: any AuthAPI) -> any AuthAPI {
        sessionsBeforeVerification ? backend.admittingUnverifiedAccounts() : backend
    }
}
