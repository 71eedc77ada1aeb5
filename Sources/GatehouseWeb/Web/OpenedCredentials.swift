import AuthCore
import Foundation

/// The backend sessions `SessionBindings` has opened, by the sealed text they were opened from.
///
/// Opening is a pure function of that text (decrypt, then decode JSON), so remembering it cannot
/// keep a revoked session alive: every request still reads its row — revocation, expiry, idleness
/// and the sealed text itself — from Store, and the backend still checks the session it names. A
/// changed credential is different text and opens afresh. Bounded: emptied when full.
final class OpenedCredentials: @unchecked Sendable {
    static let capacity = 4096

    /// Guarded by `lock` (`Synchronization.Mutex` needs macOS 15).
    private var opened: [String: AuthSession] = [:]
    private let lock = NSLock()

    func session(sealed: String, open: (String) -> AuthSession?) -> AuthSession? {
        if let known = lock.withLock({ opened[sealed] }) { return known }
        guard let session = open(sealed) else { return nil }
        lock.withLock {
            if opened.count >= Self.capacity { opened.removeAll(keepingCapacity: true) }
            opened[sealed] = session
        }
        return session
    }
}
