import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where `AuthClient` keeps its session between calls and launches.
public protocol SessionStorage: Sendable {
    func load() async throws -> AuthSession?
    /// Stores `session`, or forgets it when nil.
    func save(_ session: AuthSession?) async throws
}

/// Keeps the session for the life of the process.
public final class InMemorySessionStorage: SessionStorage {
    private let stored: Mutex<AuthSession?>

    public init(_ session: AuthSession? = nil) { stored = Mutex(session) }

    public func load() async throws -> AuthSession? { stored.withLock { $0 } }

    public func save(_ session: AuthSession?) async throws { stored.withLock { $0 = session } }
}

/// Keeps the session as JSON in one file, readable by the owner only (0600), replaced atomically.
/// The file holds live tokens: keep it where other users cannot read it.
public struct FileSessionStorage: SessionStorage {
    public let path: String

    public init(path: String) { self.path = path }

    public func load() async throws -> AuthSession? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try Self.decoder.decode(AuthSession.self, from: data)
    }

    public func save(_ session: AuthSession?) async throws {
        guard let session else {
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            return
        }
        let data = try Self.encoder.encode(session)
        let temporary = path + ".tmp-\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        // rename(2) replaces the old file atomically: a crash leaves the old session or the new one.
        guard rename(temporary, path) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    // Dates keep full precision, so a reloaded session equals the saved one.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    private static let decoder = JSONDecoder()
}
