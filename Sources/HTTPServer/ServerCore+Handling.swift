internal import CMicroHTTPD
import Foundation

extension ServerCore {
    /// The access handler's logic, called by MHD several times per request:
    /// 1. headers parsed: record them, reject bad targets (400) and oversized bodies (413);
    /// 2. once per body chunk: append it, rejecting a body that grows past the limit;
    /// 3. body complete: run the responder, and queue its response when it answers at once
    ///    (`dispatch`), or suspend until its task resumes the connection;
    /// 4. after resumption: queue the response.
    /// The first call never queues a success response: doing so turns keep-alive into close.
    func handle(
        connection: OpaquePointer,
        state: RequestState,
        method: UnsafePointer<CChar>,
        version: UnsafePointer<CChar>?,
        uploadData: UnsafePointer<CChar>?,
        uploadDataSize: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        if !state.headersSeen {
            return readHeaders(connection: connection, state: state, method: method, version: version)
        }
        if uploadDataSize.pointee > 0 {
            return readBody(connection: connection, state: state, data: uploadData, size: uploadDataSize)
        }
        if state.rejected {
            return .YES
        }
        if state.overflowed {
            return reject(.bodyTooLarge, on: connection, state: state)
        }
        if let response = state.takeResponse() {
            return queue(response, on: connection, state: state)
        }
        guard !state.dispatched, case .success(let target) = state.target else {
            return .YES
        }
        return dispatch(connection: connection, state: state, target: target)
    }

    private func readHeaders(
        connection: OpaquePointer, state: RequestState, method: UnsafePointer<CChar>, version: UnsafePointer<CChar>?
    ) -> MHD_Result {
        state.headersSeen = true
        connections.requestStarted(Int(bitPattern: connection))
        state.method = HTTPMethod(rawValue: String(cString: method))
        guard let version else { return reject(.malformedHead, on: connection, state: state) }
        var head = HeadReading(
            head: StrictHead(
                method: method, version: version, targetLength: state.rawTargetLength,
                headSize: gh_request_head_size(connection)))
        withUnsafeMutablePointer(to: &head) { head in
            _ = gh_request_headers(connection, readField, head)
        }
        state.headers = head.headers
        guard head.head.isStrict else { return reject(.malformedHead, on: connection, state: state) }
        if case .failure(let error) = state.target {
            return reject(error, on: connection, state: state)
        }
        if let allowedHosts = configuration.allowedHosts {
            switch allowedHosts.check(state.headers.values(for: "Host")) {
            case .malformed?: return reject(.malformedHost, on: connection, state: state)
            case .notAllowed(let host)?: return reject(.misdirected(host), on: connection, state: state)
            case nil: break
            }
        }
        let length: UInt64?
        switch Self.framing(of: state.headers) {
        case .failure(let error): return reject(error, on: connection, state: state)
        case .success(let declared): length = declared
        }
        if let length, length > UInt64(configuration.maxBodyBytes) {
            return reject(.bodyTooLarge, on: connection, state: state)
        }
        // The headers are in: the connection gets its ordinary idle timeout, except while a chunked
        // body streams. libmicrohttpd never shows a chunk's declared size, so a sender that declares
        // an impossible chunk and stalls is cut after `headerTimeout`; one that keeps sending hits
        // the body limit (413).
        if state.headers["Transfer-Encoding"] == nil {
            _ = gh_set_connection_timeout(connection, UInt32(configuration.connectionTimeout))
        }
        return .YES
    }

    /// The declared body length, or why the framing cannot be trusted (RFC 9112 §6): a request
    /// smuggled behind an ambiguous one would otherwise be read differently by a proxy and by us.
    ///
    /// `Transfer-Encoding` must be one field whose value is `chunked` in any ASCII letter case and
    /// nothing else, not even trailing whitespace (which RFC 9110 §5.5 would strip): libmicrohttpd
    /// dechunks exactly that and reads any other value as a body that ends when the connection
    /// does, so accepting `chunked<TAB>` or `chunked<NBSP>` left the connection hanging.
    static func framing(of headers: HTTPHeaders) -> Result<UInt64?, RequestError> {
        let codings = headers.values(for: "Transfer-Encoding")
        let lengths = headers.values(for: "Content-Length")
            .flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            // Optional whitespace is spaces and tabs (RFC 9110 §5.6.3), trimmed on the bytes:
            // Foundation's `trimmingCharacters` (which also took Unicode spaces) was 2 % of every POST.
            .map { Request.trimmingBlanks($0) }
        if !codings.isEmpty {
            guard lengths.isEmpty else { return .failure(.ambiguousFraming) }
            guard codings.count == 1, codings[0].utf8.map({ $0 | 0x20 }).elementsEqual("chunked".utf8) else {
                return .failure(.unsupportedTransferCoding)
            }
            return .success(nil)
        }
        guard let first = lengths.first else { return .success(nil) }
        guard !first.isEmpty, first.utf8.count <= 19, first.allSatisfy({ $0.isASCII && $0.isNumber }),
            let value = UInt64(first), lengths.allSatisfy({ $0 == first })
        else { return .failure(.ambiguousFraming) }
        return .success(value)
    }

    private func readBody(
        connection: OpaquePointer,
        state: RequestState,
        data: UnsafePointer<CChar>?,
        size: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        let count = size.pointee
        size.pointee = 0
        if state.overflowed || state.body.count + count > configuration.maxBodyBytes {
            // A chunked body (no Content-Length) outgrew the limit while streaming. MHD refuses
            // to queue a response until the body is complete, so the excess is read and dropped
            // and 413 is answered at the end; past another `maxBodyBytes` the connection is cut.
            state.overflowed = true
            state.body = []
            state.discarded += count
            return state.discarded > configuration.maxBodyBytes ? .NO : .YES
        }
        guard !state.rejected else { return .YES }
        guard let data else { return .NO }
        data.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
            state.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
        }
        return .YES
    }

    /// Answers a client error before any handler runs and closes the connection afterwards.
    private func reject(_ error: RequestError, on connection: OpaquePointer, state: RequestState) -> MHD_Result {
        state.rejected = true
        var response = rejections(error.status, error.message, state.rawPath)
        response.headers.add("Connection", "close")
        return queue(response, on: connection, state: state)
    }

    /// Runs the responder in a task that starts on this MHD thread (`InlineFirstExecutor`). When it
    /// answers without waiting, the response is queued at once; otherwise the connection is
    /// suspended until the task delivers it, and MHD calls back to queue it.
    private func dispatch(connection: OpaquePointer, state: RequestState, target: RequestTarget) -> MHD_Result {
        state.dispatched = true
        let request = Request(
            method: state.method,
            target: target,
            headers: state.headers,
            body: state.body,
            remoteAddress: state.remoteAddress,
            isLoopbackPeer: state.isLoopbackPeer
        )
        state.body = []
        let responder = self.responder
        let executor = InlineFirstExecutor()
        let task = Task(executorPreference: executor) {
            let response = await responder(request)
            state.deliver(response)
            self.unregisterSuspended(state)
        }
        state.attach(task)
        executor.drain()
        if let response = state.takeResponse() {
            return queue(response, on: connection, state: state)
        }
        guard registerSuspended(state) else {
            state.deliver(Self.shuttingDown, cancellingTask: true)
            return queue(state.takeResponse() ?? Self.shuttingDown, on: connection, state: state)
        }
        if let response = state.takeResponseOrSuspend(connection) {
            // It came from another thread between the drain and now.
            unregisterSuspended(state)
            return queue(response, on: connection, state: state)
        }
        return .YES
    }
}

/// The fields read so far and the check of their framing, filled by `readField`.
private struct HeadReading {
    var headers = HTTPHeaders()
    var head: StrictHead
}

/// Appends one request header to the `HeadReading` that `cls` points to and checks its framing.
private let readField: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
    guard let cls, let key else { return .YES }
    let reading = cls.assumingMemoryBound(to: HeadReading.self)
    reading.pointee.head.field(
        name: UnsafeRawPointer(key), nameCount: keySize, value: value.map(UnsafeRawPointer.init), valueCount: valueSize)
    let name = key.withMemoryRebound(to: UInt8.self, capacity: keySize) {
        String(decoding: UnsafeBufferPointer(start: $0, count: keySize), as: UTF8.self)
    }
    let text =
        value.map { pointer in
            pointer.withMemoryRebound(to: UInt8.self, capacity: valueSize) {
                String(decoding: UnsafeBufferPointer(start: $0, count: valueSize), as: UTF8.self)
            }
        } ?? ""
    reading.pointee.headers.add(name, text)
    return .YES
}
