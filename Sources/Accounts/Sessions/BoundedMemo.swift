import Foundation

/// Values that are a pure function of their key, remembered so they are computed once.
/// Bounded: emptied when full, so memory stays flat whatever the keys. Safe from any thread.
public final class BoundedMemo<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    let capacity: Int
    /// Guarded by `lock` (`Synchronization.Mutex` needs macOS 15).
    private var values: [Key: Value] = [:]
    private let lock = NSLock()

    public init(capacity: Int) { self.capacity = capacity }

    /// The value remembered for `key`, else `make()`'s, remembered unless it is nil.
    public func value(for key: Key, make: () -> Value?) -> Value? {
        if let known = lock.withLock({ values[key] }) { return known }
        guard let value = make() else { return nil }
        lock.withLock {
            if values.count >= capacity { values.removeAll(keepingCapacity: true) }
            values[key] = value
        }
        return value
    }
}
