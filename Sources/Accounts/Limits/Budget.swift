import AuthCore
import Foundation

/// One limit Gatehouse keeps, named by what it counts and whose count it is. Each case has its
/// one rule (`rule`), whichever front-end takes it: the hosted pages, the console, the admin API,
/// the PocketBase and InsForge APIs all spend the same counts (README "Defaults and limits").
public enum Budget: Sendable, Equatable {
    /// Sign-up attempts from one IP address.
    case signUps(ip: String)
    /// Mails asked for from one IP address: verification, reset, sign-in codes and links, email change.
    case mails(ip: String)
    /// Verification mails to one address (the sign-up's mail counts too).
    case verificationMailsTo(String)
    /// Password-reset mails to one address.
    case resetMailsTo(String)
    /// Passwordless sign-in mails of one kind (code or link) to one address: the cool-down.
    case signInMailsTo(String, SignInMail)
    /// Passwordless sign-in mails to one address, both kinds, in an hour: a code's five tries must
    /// not add up to many guesses.
    case signInMailsPerHourTo(String)
    /// Checks of mailed codes and tokens from one IP address: verification, reset, sign-in codes,
    /// magic links, email-change tokens, authenticator enrolment.
    case codeChecks(ip: String)
    /// Second sign-in steps (authenticator and recovery codes) from one IP address.
    case secondSteps(ip: String)
    /// Password sign-in tries from one IP address, people's and superusers' counted apart.
    case signInTries(ip: String, Door)
    /// Passkey ceremonies begun from one IP address — sign-ins, sign-ups and passkeys added, with a
    /// session or without (each stores a challenge, so an unthrottled caller could fill the table):
    /// the pages', the console's and Descope's options counted together.
    case passkeyStarts(ip: String)
    /// Questions to the password-strength meter from one IP address: each runs the estimator, and
    /// anyone may ask.
    case strengthChecks(ip: String)

    /// The passwordless mails, each with its own cool-down.
    public enum SignInMail: String, Sendable {
        case code, link
    }

    /// Who signs in: people (the pages and the apps' APIs) or superusers (the console and its APIs).
    public enum Door: Sendable {
        case people, staff
    }

    /// A budget's rule: at most `limit` events per `window` seconds (sliding).
    public struct Rule: Sendable {
        var limit: Int
        var window: TimeInterval
    }

    var rule: Rule {
        switch self {
        case .signUps: Rule(limit: 50, window: 3600)
        case .mails: Rule(limit: 20, window: 3600)
        case .verificationMailsTo, .signInMailsTo: Rule(limit: 1, window: 60)
        case .resetMailsTo: Rule(limit: 3, window: 15 * 60)
        case .signInMailsPerHourTo: Rule(limit: 10, window: 3600)
        case .codeChecks, .secondSteps, .signInTries: Rule(limit: 30, window: 5 * 60)
        // Every sign-in page a passkey-capable browser opens asks once (autofill).
        case .passkeyStarts: Rule(limit: 60, window: 5 * 60)
        // The meter asks once typing pauses (250 ms): a person choosing a password asks a few dozen times.
        case .strengthChecks: Rule(limit: 300, window: 5 * 60)
        }
    }

    /// True for a source's budget (an IP address): refusing it says nothing about any account, so
    /// every front-end may answer 429. An address's budget is taken for every address, known or not.
    public var countsSource: Bool {
        switch self {
        case .signUps, .mails, .codeChecks, .secondSteps, .signInTries, .passkeyStarts, .strengthChecks: true
        case .verificationMailsTo, .resetMailsTo, .signInMailsTo, .signInMailsPerHourTo: false
        }
    }

    /// The key its events are stored under (unchanged from the page-only limits, so counts kept in
    /// an existing database still hold).
    public var key: String {
        switch self {
        case .signUps(let ip): "sign-up:\(ip)"
        case .mails(let ip): "sends:\(ip)"
        case .verificationMailsTo(let email): "resend:\(EmailAddress.normalize(email))"
        case .resetMailsTo(let email): "password-reset:\(EmailAddress.normalize(email))"
        case .signInMailsTo(let email, let kind): "passwordless-\(kind.rawValue):\(EmailAddress.normalize(email))"
        case .signInMailsPerHourTo(let email): "passwordless-hour:\(EmailAddress.normalize(email))"
        case .codeChecks(let ip): "code:\(ip)"
        case .secondSteps(let ip): "mfa:\(ip)"
        case .signInTries(let ip, .people): "sign-in:\(ip)"
        case .signInTries(let ip, .staff): "console-sign-in:\(ip)"
        case .passkeyStarts(let ip): "passkey-start:\(ip)"
        case .strengthChecks(let ip): "password-strength:\(ip)"
        }
    }
}
