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
    let database: AppDatabase
    let renderer: TemplateRenderer
    let sessions: BrowserSessions
    let console: ConsoleSessions
    let staffSignIn: StaffSignIn
    let csrf: CSRFGuard
    let limiter: RateLimiter
    let audit: AuditTrail
    let clock: @Sendable () -> Date
    let logger: Logger
}
