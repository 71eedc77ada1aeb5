import HTTPServer
import Synchronization

/// The faults in force, in the order they were added: the server's dispatch asks it about every
/// request (`take`), the test controls add and remove them (`TestFaults`). Memory only — a restart
/// ends every fault — and bounded. While none is in force, asking costs one atomic read.
public final class FaultBoard: Sendable {
    private let faults = Mutex<[InjectedFault]>([])
    /// How many faults are in force, kept beside the list (changed under its lock) so the dispatch
    /// can pass by an empty board without taking the lock.
    private let inForce = Atomic<Int>(0)

    /// The most faults in force at once.
    static let capacity = 100

    public init() {}

    /// Whether no fault is in force: the dispatch's check before anything else about faults.
    public var isEmpty: Bool { inForce.load(ordering: .acquiring) == 0 }

    /// The oldest fault that takes this request, counted as used (and gone once spent); nil for none.
    public func take(method: HTTPMethod, path: String) -> InjectedFault? {
        faults.withLock { faults in
            defer { inForce.store(faults.count, ordering: .releasing) }
            guard !faults.isEmpty, let index = faults.firstIndex(where: { $0.takes(method: method, path: path) }) else {
                return nil
            }
            let fault = faults[index]
            faults[index].remaining -= 1
            if faults[index].remaining <= 0 { faults.remove(at: index) }
            return fault
        }
    }

    /// Every fault in force, oldest first.
    var all: [InjectedFault] { faults.withLock { $0 } }

    /// Adds `fault`; false when the board is full.
    func add(_ fault: InjectedFault) -> Bool {
        faults.withLock { faults in
            guard faults.count < Self.capacity else { return false }
            faults.append(fault)
            inForce.store(faults.count, ordering: .releasing)
            return true
        }
    }

    /// Removes the fault `id`; false when there is none.
    func remove(id: String) -> Bool {
        faults.withLock { faults in
            guard let index = faults.firstIndex(where: { $0.id == id }) else { return false }
            faults.remove(at: index)
            inForce.store(faults.count, ordering: .releasing)
            return true
        }
    }

    /// Removes every fault; how many there were.
    func removeAll() -> Int {
        faults.withLock { faults in
            defer {
                faults.removeAll()
                inForce.store(0, ordering: .releasing)
            }
            return faults.count
        }
    }
}
