import Foundation

/// A pipe the accept loop polls beside the listening socket, so `shutdown()` can wake it from
/// another thread without closing a descriptor the loop may still be using.
struct WakePipe: Sendable {
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws(SMTPSocketError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .lastError(of: "pipe") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    /// Makes the read end readable for good (nothing ever reads the byte back).
    func wake() {
        var byte: UInt8 = 1
        while write(writeEnd, &byte, 1) < 0 && errno == EINTR {}
    }

    /// Waits up to `timeout` for `wake()`; true once woken (or when the wait itself failed, so a
    /// caller backing off never spins).
    func waitForWake(upTo timeout: Duration) -> Bool {
        (try? Poll.wait(for: Int32(POLLIN), on: readEnd, timeout: timeout)) ?? true
    }

    /// Closes both ends, once the accept loop has returned.
    func closeBothEnds() {
        close(readEnd)
        close(writeEnd)
    }
}
