import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A 32-byte key kept in its own file beside the database (so a copy of the SQLite file alone
/// does not reveal what the key protects). Created on first run with mode 0600.
public enum KeyFile {
    /// The key in `path`, creating the file from the CSPRNG when it does not exist yet.
    public static func loadOrCreate(path: String, length: Int = 32) throws(SecretsError) -> [UInt8] {
        // O_EXCL: of two processes starting at once, exactly one creates the file.
        let fd = openFile(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if fd >= 0 {
            let key = SecureRandom.bytes(length)
            let written = key.withUnsafeBytes { write(fd, $0.baseAddress, length) }
            close(fd)
            guard written == length else { throw .keyFile(path: path, reason: "could not write (errno \(errno))") }
            return key
        }
        guard errno == EEXIST else { throw .keyFile(path: path, reason: "could not create (errno \(errno))") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .keyFile(path: path, reason: "could not read")
        }
        guard data.count == length else { throw .keyFile(path: path, reason: "expected \(length) bytes, found \(data.count)") }
        return Array(data)
    }
}

private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}
