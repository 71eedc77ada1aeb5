import Secrets
import Synchronization

/// Ids for requests that bring no `X-Request-Id`: a random prefix per start and a count, so ids
/// never repeat within a run and cost no random bytes per request. Short enough (`gh-` and four
/// characters, then up to seven digits) to be one of Swift's in-place strings: no allocation.
final class RequestIDs: Sendable {
    private let prefix = "gh-" + String(SecureRandom.userID().prefix(4)) + "-"
    private let count = Atomic<Int>(0)

    func next() -> String {
        prefix + String(count.add(1, ordering: .relaxed).newValue)
    }
}
