internal import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A response body written after the headers, piece by piece, for as long as the client listens
/// (server-sent events). A handler makes one, returns it with `Response.stream(_:headers:)`, and
/// keeps it to `send` more; the server writes what was sent without ever blocking its threads.
///
/// The stream ends, once, when the handler calls `finish()` (after what was sent is written), when
/// the client goes away (noticed at the next write: keep-alive bytes make sure there is one; or at
/// once where the server or handler asks `clientLeft`), when
/// the server refuses it (too many open streams) or shuts down, or when the client reads too slowly
/// for `maxBuffered` bytes to fit. Handlers registered with `onTermination` then run.
public final class ResponseStream: Sendable {
    /// Written every `keepAlive` while the stream is open, so a client that left is noticed and
    /// proxies do not time the connection out (an SSE comment such as `":\n\n"`).
    public let keepAliveBytes: [UInt8]
    public let keepAlive: Duration?
    /// Unwritten bytes allowed before the client counts as gone.
    public let maxBuffered: Int
    /// The streams this one is counted with (`maxStreams`, `maxStreamsPerIP`): each feature names
    /// its own, so one feature's streams never take another's places.
    public let pool: String

    private struct State {
        var pending: [UInt8] = []
        /// No more `send`s; the stream ends once `pending` is written.
        var finished = false
        /// Over: released by the server, or never opened.
        var terminated = false
        /// The connection, once the server opened the stream.
        var connection: OpaquePointer?
        /// The connection is suspended, waiting for bytes.
        var parked = false
        var terminationHandlers: [@Sendable () -> Void] = []
        var keepAliveTask: Task<Void, Never>?
    }

    private let state = Locked(State())

    public init(
        pool: String = "", keepAlive: Duration? = .seconds(30), keepAliveBytes: [UInt8] = Array(":\n\n".utf8),
        maxBuffered: Int = 256 << 10
    ) {
        self.pool = pool
        self.keepAlive = keepAlive
        self.keepAliveBytes = keepAliveBytes
        self.maxBuffered = maxBuffered
    }

    /// Queues `bytes` for the client; false once the stream is finished or over.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard !state.finished, !state.terminated else { return false }
            guard state.pending.count + bytes.count <= maxBuffered else {
                // The client stopped reading: end the stream rather than hold memory for it.
                state.finished = true
                state.pending = []
                Self.wake(&state)
                return false
            }
            state.pending.append(contentsOf: bytes)
            Self.wake(&state)
            return true
        }
    }

    /// Ends the stream once what was sent is written.
    public func finish() {
        state.withLock { state in
            state.finished = true
            Self.wake(&state)
        }
    }

    /// Runs `handler` once when the stream is over (at once if it already is).
    public func onTermination(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            guard !state.terminated else { return true }
            state.terminationHandlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    /// Whether the stream still takes bytes.
    public var isOpen: Bool { state.withLock { !$0.finished && !$0.terminated } }

    /// Whether the client closed its end (its socket reads end-of-file or fails), seen at once: a
    /// parked connection is not polled, so otherwise only the next write notices. Peeks, never
    /// reads; false while the stream is not yet bound or is over.
    public var clientLeft: Bool {
        state.withLock { state in
            // The connection, and so its socket, stays MHD's until `terminate` clears it under this lock.
            guard !state.terminated, let connection = state.connection else { return false }
            let socket = gh_connection_socket(connection)
            guard socket >= 0 else { return false }
            var byte: UInt8 = 0
            let peeked = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            return peeked == 0 || (peeked < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        }
    }

    // MARK: - The server's side

    /// Binds the stream to its connection (on the MHD thread, while queueing the response) and
    /// starts the keep-alive; false when it is already over.
    func open(on connection: OpaquePointer) -> Bool {
        state.withLock { state in
            guard !state.terminated else { return false }
            state.connection = connection
            if let keepAlive, !keepAliveBytes.isEmpty {
                state.keepAliveTask = Task { [weak self] in
                    while !Task.isCancelled {
                        try? await Task.sleep(for: keepAlive)
                        guard let self, !Task.isCancelled, self.send(self.keepAliveBytes) else { return }
                    }
                }
            }
            return true
        }
    }

    /// MHD's content reader: copies what is pending, ends a finished stream, or suspends the
    /// connection until `send`/`finish` resumes it (returning 0 without suspending would spin).
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        state.withLock { state in
            if !state.pending.isEmpty {
                let count = min(max, state.pending.count)
                state.pending.withUnsafeBytes { bytes in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress!, byteCount: count)
                }
                state.pending.removeFirst(count)
                return count
            }
            if state.finished || state.terminated { return -1 }  // MHD_CONTENT_READER_END_OF_STREAM
            guard let connection = state.connection else { return -1 }
            state.parked = true
            MHD_suspend_connection(connection)
            return 0
        }
    }

    /// Marks the stream over and runs the termination handlers (MHD released it, or it was refused).
    func terminate() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.terminated else { return [] }
            state.terminated = true
            state.finished = true
            state.pending = []
            // MHD is done with the connection (or never had it): nothing to resume.
            state.connection = nil
            state.parked = false
            state.keepAliveTask?.cancel()
            state.keepAliveTask = nil
            defer { state.terminationHandlers = [] }
            return state.terminationHandlers
        }
        for handler in handlers { handler() }
    }

    /// Resumes a parked connection so MHD reads again (under the lock, like `RequestState.deliver`).
    private static func wake(_ state: inout State) {
        guard state.parked, let connection = state.connection else { return }
        state.parked = false
        MHD_resume_connection(connection)
    }
}

extension Response {
    /// A streamed response: `headers` now, then whatever `stream` is sent, chunked.
    public static func stream(_ stream: ResponseStream, status: Int = 200, headers: HTTPHeaders = HTTPHeaders()) -> Response {
        var response = Response(status: status, headers: headers)
        response.stream = stream
        return response
    }
}
