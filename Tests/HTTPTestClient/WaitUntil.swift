/// A wait whose deadline passed; its text names what was awaited and where, so the test fails
/// with a reason instead of hanging.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public let description: String
}

/// Checks `condition` every `interval` until it holds; throws `WaitTimedOut` once `timeout` has
/// passed without it. Use it instead of sleeping a fixed time and then asserting, which is flaky
/// on a busy machine, and instead of unbounded polling loops, which hang a broken test.
public func waitUntil(
    _ what: @autoclosure () -> String,
    timeout: Duration = .seconds(10),
    interval: Duration = .milliseconds(5),
    fileID: StaticString = #fileID,
    line: UInt = #line,
    _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while try await !condition() {
        guard clock.now < deadline else {
            throw WaitTimedOut(description: "\(fileID):\(line): still waiting after \(timeout) for \(what())")
        }
        try await Task.sleep(for: interval)
    }
}
