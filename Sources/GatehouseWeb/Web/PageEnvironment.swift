import AuthCore
import Foundation
import Logging
import Secrets
import ServerSeam
import Store

/// What the page handlers share: the backend (the one seam to users), Gatehouse's own state, and
/// the request-independent helpers. Built once at start-up.
struct PageEnvironment: Sendable {
    let configuration: WebConfiguration
    /// Where the users are; its `admin` side serves the console (when `.userAdministration` is offered).
    let backend: any AuthAPI
    /// The backend as the pages use it to sign people in: its sessions back browser sessions.
    var pageBackend: any AuthAPI { backend.opening(for: .browserSession) }
    let database: AppDatabase
    /// The dev mailbox's reader: it opens the sealed mails.
    let mailbox: MailboxMailer
    let renderer: TemplateRenderer
    let sessions: BrowserSessions
    let console: ConsoleSessions
    let staffSignIn: StaffSignIn
    let csrf: CSRFGuard
    /// The owner of every limit (`Budget`) and its counts.
    let budgets: Budgets
    let audit: AuditTrail
    let impersonationTickets: ImpersonationTickets
    let clock: @Sendable () -> Date
    let logger: Logger
}
