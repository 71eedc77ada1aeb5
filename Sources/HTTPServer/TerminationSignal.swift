import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Waits for SIGINT or SIGTERM and returns which arrived, so `main` can shut down gracefully
/// (`await server.shutdown(...)`) instead of dying on the default handlers, which are ignored
/// from the first call on.
public func waitForTerminationSignal() async -> Int32 {
    let signals = [SIGINT, SIGTERM]
    for number in signals {
        signal(number, SIG_IGN)
    }
    let queue = DispatchQueue(label: "gatehouse.signals")
    return await withCheckedContinuation { continuation in
        let fired = Locked(false)
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            sources.append(source)
        }
        let all = sources
        for source in all {
            source.setEventHandler {
                let first = fired.withLock { done in
                    defer { done = true }
                    return !done
                }
                guard first else { return }
                for other in all { other.cancel() }
                continuation.resume(returning: Int32(source.handle))
            }
            source.resume()
        }
    }
}
