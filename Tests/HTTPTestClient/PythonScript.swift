import Foundation

/// Runs `python3 -c SCRIPT ARGS…` as a real peer (e.g. `smtplib` against the mail catcher) and
/// returns its standard output; a non-zero exit throws with standard error, and a script that hangs
/// is killed after `timeout` seconds.
public enum PythonScript {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func run(_ script: String, arguments: [String] = [], timeout: TimeInterval = 30) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
            let pid = process.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [process] in
                if process.isRunning && process.processIdentifier == pid { process.terminate() }
            }
        }
        let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard status == 0 else { throw Failure(description: "python3 exited with \(status): \(stderr)") }
        return stdout
    }
}
