internal import CMicroHTTPD

/// The streams a server has open: bounded per pool (`ResponseStream.pool`), overall and per client
/// address, refused once shutdown began, and all finished when it does, so an open stream never holds shutdown for its grace period.
/// A stream whose client left is counted out as soon as a newcomer meets a limit, not at its next
/// write (up to a keep-alive later): a reloaded page gets its stream back at once.
final class StreamRegistry: Sendable {
    private struct Open {
        /// Open streams per pool, and per pool and address.
        var byPool: [String: Int] = [:]
        var byAddress: [Place: Int] = [:]
        var streams: [ObjectIdentifier: (stream: ResponseStream, place: Place)] = [:]
        var closed = false
    }

    /// Where a stream is counted: its pool and its client's address.
    private struct Place: Hashable {
        var pool: String
        var address: String
    }

    private let open = Locked(Open())

    var count: Int { open.withLock { $0.streams.count } }

    /// Why a stream was not admitted, as the status and text answered instead.
    enum Refusal {
        case full, tooManyFromAddress, closing

        var response: Response {
            switch self {
            case .full, .closing: ServerCore.shuttingDown
            case .tooManyFromAddress: .text("Too many open streams from this address.\n", status: 429)
            }
        }
    }

    /// Counts `stream` in, or says why not; its termination counts it out again. At a limit, the
    /// streams it counts whose clients left are counted out first.
    func admit(_ stream: ResponseStream, from address: String, limits: HTTPServer.Configuration) -> Refusal? {
        switch countIn(stream, from: address, limits: limits) {
        case nil: return nil
        case .closing: return .closing
        case .full: countOutLeft(pool: stream.pool, from: nil)
        case .tooManyFromAddress: countOutLeft(pool: stream.pool, from: address)
        }
        return countIn(stream, from: address, limits: limits)
    }

    private func countIn(_ stream: ResponseStream, from address: String, limits: HTTPServer.Configuration) -> Refusal? {
        let key = ObjectIdentifier(stream)
        let place = Place(pool: stream.pool, address: address)
        let refusal: Refusal? = open.withLock { open in
            if open.closed { return .closing }
            if open.byPool[place.pool, default: 0] >= limits.maxStreams { return .full }
            if open.byAddress[place, default: 0] >= limits.maxStreamsPerIP { return .tooManyFromAddress }
            open.streams[key] = (stream, place)
            open.byPool[place.pool, default: 0] += 1
            open.byAddress[place, default: 0] += 1
            return nil
        }
        guard refusal == nil else { return refusal }
        stream.onTermination { [weak self] in self?.countOut(key) }
        return nil
    }

    private func countOut(_ key: ObjectIdentifier) {
        open.withLock { open in
            guard let place = open.streams.removeValue(forKey: key)?.place else { return }
            open.byPool[place.pool, default: 1] -= 1
            if open.byPool[place.pool] == 0 { open.byPool[place.pool] = nil }
            open.byAddress[place, default: 1] -= 1
            if open.byAddress[place] == 0 { open.byAddress[place] = nil }
        }
    }

    /// Counts out and finishes the streams of `pool` (from `address`, or all) whose clients left.
    private func countOutLeft(pool: String, from address: String?) {
        let streams = open.withLock { open in
            open.streams.filter { $0.value.place.pool == pool && (address == nil || $0.value.place.address == address) }
                .map { ($0.key, $0.value.stream) }
        }
        for (key, stream) in streams where stream.clientLeft {
            countOut(key)
            stream.finish()
        }
    }

    /// Refuses new streams and finishes every open one (shutdown).
    func finishAll() {
        let streams = open.withLock { open in
            open.closed = true
            return open.streams.values.map(\.stream)
        }
        for stream in streams { stream.finish() }
    }
}

extension ServerCore {
    /// Admits a streamed response, or turns it into the refusal's answer (ending the stream).
    func admitStream(_ response: Response, state: RequestState) -> Response {
        guard let stream = response.stream else { return response }
        if let refusal = streams.admit(stream, from: state.remoteAddress, limits: configuration) {
            stream.terminate()
            logger.notice("stream refused", metadata: ["path": "\(state.pathForLog)", "reason": "\(refusal)"])
            return refusal.response
        }
        return response
    }

    /// An MHD response whose body is read from `stream` (chunked, unknown length); the stream is
    /// retained until MHD frees the response, which terminates it.
    static func makeStreamingBody(_ stream: ResponseStream, connection: OpaquePointer) -> OpaquePointer? {
        guard stream.open(on: connection) else { return nil }
        let retained = Unmanaged.passRetained(stream).toOpaque()
        guard let created = MHD_create_response_from_callback(UInt64.max, 4096, streamReader, retained, streamReleased) else {
            Unmanaged<ResponseStream>.fromOpaque(retained).release()
            stream.terminate()
            return nil
        }
        return created
    }
}

/// MHD's content reader for a streamed response (see `ResponseStream.read`).
private let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return -2 }  // MHD_CONTENT_READER_END_WITH_ERROR
    return Unmanaged<ResponseStream>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
}

/// MHD is done with a streamed response (written, or the client left): the stream is over.
private let streamReleased: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<ResponseStream>.fromOpaque(cls).takeRetainedValue().terminate()
}
