import Foundation
import ServerSeam
import Synchronization

/// The last requests the server answered, for a test suite to see what its calls reached and what
/// they caused (`GET /_/api/test/requests`): a ring of `capacity` entries in memory, newest
/// replacing oldest, written by the server's dispatch while the test controls are on.
public final class RequestLedger: Sendable {
    /// One request as the ledger keeps it.
    public struct Entry: Sendable {
        /// `X-Request-Id` as the caller sent it, else the one Gatehouse gave it.
        public let id: String
        public let at: Date
        public let method: String
        /// The path, without its query (which may carry a token).
        public let path: String
        /// The route that answered, as registered (`/api/collections/:collection/auth-refresh`); nil for none.
        public let route: String?
        /// Which API family the request came in by (`pocketbase`, `insforge`, `pages`, …).
        public let wayIn: String
        public let status: Int
        public let milliseconds: Double
        /// The fault that answered or delayed it, if one did.
        public let fault: String?
        /// What it caused: mails, audit rows, sessions. Kept as the list, not the request's
        /// `RequestEffects`, which goes with its request: most requests cause nothing, and an empty
        /// list holds no memory for the thousand requests the ledger keeps.
        public let effects: [RequestEffects.Effect]

        public init(
            id: String, at: Date, method: String, path: String, route: String?, wayIn: String, status: Int,
            milliseconds: Double, fault: String?, effects: [RequestEffects.Effect]
        ) {
            (self.id, self.at, self.method, self.path, self.route) = (id, at, method, path, route)
            (self.wayIn, self.status, self.milliseconds, self.fault, self.effects) = (wayIn, status, milliseconds, fault, effects)
        }
    }

    /// How many requests the ledger keeps.
    public static let capacity = 1000

    private struct Ring {
        var entries: [Entry] = []
        var next = 0
    }

    private let ring = Mutex(Ring())

    public init() {}

    /// Keeps `entry`, forgetting the oldest once full.
    public func append(_ entry: Entry) {
        ring.withLock { ring in
            if ring.entries.count < Self.capacity {
                ring.entries.append(entry)
            } else {
                ring.entries[ring.next] = entry
            }
            ring.next = (ring.next + 1) % Self.capacity
        }
    }

    /// Up to `limit` entries, newest first.
    func newest(_ limit: Int) -> [Entry] {
        ring.withLock { ring in
            let ordered =
                ring.entries.count < Self.capacity
                ? ring.entries : Array(ring.entries[ring.next...] + ring.entries[..<ring.next])
            return Array(ordered.reversed().prefix(limit))
        }
    }

    /// Forgets every entry.
    func removeAll() {
        ring.withLock { $0 = Ring() }
    }
}
