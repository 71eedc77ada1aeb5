import HTTPServer
import Synchronization

/// The faults in force, in the order they were added: the server's dispatch asks it about every
/// request (`take`), the test controls add and remove them (`TestFaults`). Memory only — a restart
/// ends every fault — and bounded.
public final class FaultBoard: Sendable {
    private let faults = Mutex<[InjectedFault]>([])

    /// The most faults in force at once.
    static let capacity = 100

    public init() {}

    /// The oldest fault that takes this request, counted as used (and gone once spent); nil for none.
    public func take(method: HTTPMethod, path: String) -> InjectedFault? {
        faults.withLock { faults in
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
            return true
        }
    }

    /// Removes the fault `id`; false when there is none.
    func remove(id: String) -> Bool {
        faults.withLock { faults in
            guard let index = faults.firstIndex(where: { $0.id == id }) else { return false }
            faults.remove(at: index)
            return true
        }
    }

    /// Removes every fault; how many there were.
    func removeAll() -> Int {
        faults.withLock { faults in
            defer { faults.removeAll() }
            return faults.count
        }
    }
}
