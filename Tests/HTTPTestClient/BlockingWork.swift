import Foundation

/// Runs blocking socket work on its own thread and awaits it, so a test never parks a thread
/// of the Swift concurrency pool that the in-process server's handlers need.
enum BlockingWork {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws(TestClientError) -> T) async throws(TestClientError) -> T {
        let result: Result<T, TestClientError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                do throws(TestClientError) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.start()
        }
        return try result.get()
    }
}
