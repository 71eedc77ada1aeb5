import Synchronization

/// What one request caused — mails written, audit rows, sessions opened — noted by the code that
/// does each (the mailbox, the audit trail, the session rows) while the test controls' request
/// ledger follows the request. Set around a request as a task-local; nil (nothing noted, nothing
/// paid) when the ledger is off.
public final class RequestEffects: Sendable {
    /// One thing a request caused.
    public struct Effect: Sendable, Equatable {
        /// `mail`, `audit` or `session`.
        public let kind: String
        /// The mail's recipient, the audit event's name, the session's kind.
        public let detail: String
    }

    /// The most effects one request keeps (a bulk act may write thousands of audit rows).
    static let limit = 100

    private let noted = Mutex<[Effect]>([])

    public init() {}

    /// The effects noted so far, oldest first.
    public var effects: [Effect] { noted.withLock { $0 } }

    /// Notes an effect on the current request's list, when there is one.
    public static func note(_ kind: String, _ detail: String) {
        guard let current else { return }
        current.noted.withLock { list in
            if list.count < limit { list.append(Effect(kind: kind, detail: detail)) }
        }
    }

    /// The current request's list.
    @TaskLocal public static var current: RequestEffects?
}
