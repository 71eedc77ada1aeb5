import Foundation

/// Runs `python3 -c SCRIPT ARGS…` as a real peer (e.g. `smtplib` against the mail catcher) and
/// returns its standard output; a non-zero exit throws with standard error, and a script that hangs
/// is killed after `timeout` seconds.
///
/// Output goes to temp files, not pipes, and the exit is awaited through `terminationHandler`: nothing
/// here blocks a thread of the Swift concurrency pool the in-process servers need, and a pipe end
/// inherited by a sibling process cannot hold a read open.
public enum PythonScript {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func run(_ script: String, arguments: [String] = [], timeout: TimeInterval = 60) async throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("python-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        guard FileManager.default.createFile(atPath: outURL.path, contents: nil),
            FileManager.default.createFile(atPath: errURL.path, contents: nil)
        else {
            throw Failure(description: "could not create output files in \(directory.path)")
        }
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        defer {
            try? out.close()
            try? err.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        process.standardOutput = out
        process.standardError = err
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [process] in
                if process.isRunning { process.terminate() }
            }
        }
        let stdout = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        guard status == 0 else { throw Failure(description: "python3 exited with \(status): \(stderr)") }
        return stdout
    }
}
