import AuthCore
import Foundation
import Logging
import Secrets
import Store

/// What the page handlers share: the backend, Gatehouse's own state, and the request-independent
/// helpers. Built once at start-up.
struct PageEnvironment: Sendable {
    let configuration: WebConfiguration
    let backend: any AuthBackend
    /// The backend's admin side for the console; nil when it offers none (e.g. no superuser given).
    let administration: (any AuthAPI)?
    let database: AppDatabase
    let renderer: TemplateRenderer
    let sessions: BrowserSessions
    let console: ConsoleSessions
    let staffSignIn: StaffSignIn
    let csrf: CSRFGuard
    let limiter: RateLimiter
    let audit: AuditTrail
    let impersonationTickets: ImpersonationTickets
    let clock: @Sendable () -> Date
    let logger: Logger
}
