internal import CMicroHTTPD

/// Per-request state stored in MHD's `*con_cls`, from the request line to NOTIFY_COMPLETED.
///
/// The reading fields are touched only on the connection's MHD thread. Once the connection is
/// suspended, a Swift task (or a forced shutdown) hands over the response through `deliver`,
/// under the lock, and resumes the connection; MHD then calls back and queues it.
final class RequestState: @unchecked Sendable {
    let started = ContinuousClock.now
    let remoteAddress: String
    let isLoopbackPeer: Bool
    /// The parsed target, or why it is unacceptable (answered with 400 before any handler runs).
    let target: Result<RequestTarget, RequestError>
    /// The path as sent (up to `?`), even when it cannot be decoded: picks the shape of an early error.
    let rawPath: String
    /// Bytes in the request-target as MHD read it (`StrictHead` locates the fields after it).
    let rawTargetLength: Int

    // Reading phase: only the connection's MHD thread touches these.
    var headersSeen = false
    var method = HTTPMethod.get
    var headers = HTTPHeaders()
    var body: [UInt8] = []
    /// A response was queued early (400/413); remaining upload data is discarded.
    var rejected = false
    var dispatched = false
    /// A streamed body passed the limit; the rest is dropped and 413 answered at the end.
    var overflowed = false
    var discarded = 0

    private struct Handoff {
        var connection: OpaquePointer?
        var response: Response?
        var delivered = false
        var completed = false
        var task: Task<Void, Never>?
    }

    private let handoff = Locked(Handoff())

    init(rawTarget: [UInt8], remoteAddress: String, isLoopbackPeer: Bool) {
        self.remoteAddress = remoteAddress
        self.isLoopbackPeer = isLoopbackPeer
        self.rawPath = String(decoding: rawTarget.prefix { $0 != UInt8(ascii: "?") }, as: UTF8.self)
        self.rawTargetLength = rawTarget.count
        // A request-target is visible ASCII only (RFC 9112 §3.2, RFC 3986 §2).
        if rawTarget.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), let text = UTF8Text.string(rawTarget) {
            self.target = Result { () throws(RequestError) in try RequestTarget(parsing: text) }
        } else {
            self.target = .failure(.malformedTarget)
        }
    }

    /// The raw path for logs: never the query string, which may carry tokens.
    var pathForLog: String {
        switch target {
        case .success(let target): target.rawPath
        case .failure: "-"
        }
    }

    /// The response if it was delivered already; otherwise suspends the connection (under the
    /// lock `deliver` takes, so a delivery can never slip in between) and returns nil.
    func takeResponseOrSuspend(_ connection: OpaquePointer) -> Response? {
        handoff.withLock { state in
            if state.delivered {
                defer { state.response = nil }
                return state.response
            }
            MHD_suspend_connection(connection)
            state.connection = connection
            return nil
        }
    }

    /// Remembers the task computing the response, so a forced shutdown can cancel it.
    func attach(_ task: Task<Void, Never>) {
        handoff.withLock { $0.task = task }
    }

    /// Stores `response` once (later calls return false) and resumes the connection when it is
    /// suspended; while the MHD thread still runs the responder, that thread takes it
    /// (`takeResponse`). Resuming under the lock keeps a racing shutdown from stopping the daemon
    /// in between.
    @discardableResult
    func deliver(_ response: Response, cancellingTask: Bool = false) -> Bool {
        handoff.withLock { state in
            guard !state.delivered else { return false }
            state.delivered = true
            state.response = response
            if cancellingTask { state.task?.cancel() }
            if let connection = state.connection { MHD_resume_connection(connection) }
            return true
        }
    }

    /// Whether MHD finished the request (NOTIFY_COMPLETED ran).
    var isCompleted: Bool {
        get { handoff.withLock { $0.completed } }
        set { handoff.withLock { $0.completed = newValue } }
    }

    /// The delivered response, taken once on the MHD thread after resumption.
    func takeResponse() -> Response? {
        handoff.withLock { state in
            defer { state.response = nil }
            return state.response
        }
    }
}
