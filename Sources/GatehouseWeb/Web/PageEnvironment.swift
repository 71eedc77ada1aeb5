import Accounts
import AuthCore
import Foundation
import Logging

/// What the page handlers share: the operations' owner (`accounts`, the one way to users) and the
/// request-independent web helpers. Built once at start-up.
struct PageEnvironment: Sendable {
    let configuration: WebConfiguration
    let accounts: Accounts
    /// The dev mailbox's reader: it opens the sealed mails.
    let mailbox: DevMailbox
    let renderer: TemplateRenderer
    let csrf: CSRFGuard
    /// Finds the app a page belongs to while an app sign-in is pending; nil without OAuth.
    var appFlowBrands: AppFlowBrands? = nil

    var sessions: BrowserSessions { accounts.sessions }
    var console: ConsoleSessions { accounts.console }
    var staffSignIn: StaffSignIn { accounts.staffSignIn }
    var impersonationTickets: ImpersonationTickets { accounts.impersonationTickets }
    var clock: @Sendable () -> Date { accounts.clock }
    var logger: Logger { accounts.logger }
    var capabilities: Set<Capability> { accounts.capabilities }
    var verificationMode: VerificationMode { accounts.verificationMode }
    var confirmsEmailChangeWithPassword: Bool { accounts.confirmsEmailChangeWithPassword }
}
