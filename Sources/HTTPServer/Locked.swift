import Synchronization

/// A value guarded by a lock, for state shared between MHD's threads and Swift tasks: a class
/// around `Mutex`, so the state can be shared by reference and read with plain closures.
final class Locked<Value>: @unchecked Sendable {
    private let mutex: Mutex<Void> = Mutex(())
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { _ in try body(&value) }
    }
}
