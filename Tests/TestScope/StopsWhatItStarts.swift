import Synchronization
import Testing

/// Something a test starts and must stop whatever happens: a server, a peer process, a temp directory.
public protocol Stoppable: AnyObject, Sendable {
    /// Stops it and gives back what it held; calling it again does nothing.
    func stop() async
}

/// What the running test has started, stopped newest first when the test ends, passed or failed.
///
/// A fixture registers itself as it starts (`Stoppable.stopsWithTest()`); the `.stopsWhatItStarts`
/// trait opens a list for each test case and stops everything on it when the case ends, also when an
/// expectation or a `try #require` threw halfway. Without that guarantee a failing test left its
/// server, threads and hashing memory behind for the rest of the process.
public final class StartedFixtures: Sendable {
    @TaskLocal static var current: StartedFixtures?

    private let started = Mutex<[any Stoppable]>([])

    fileprivate init() {}

    fileprivate func append(_ fixture: any Stoppable) {
        started.withLock { $0.append(fixture) }
    }

    fileprivate func stopAll() async {
        let fixtures = started.withLock { fixtures in
            defer { fixtures.removeAll() }
            return fixtures
        }
        for fixture in fixtures.reversed() { await fixture.stop() }
    }
}

/// A suite or test trait: everything a test case starts is stopped when the case ends.
public struct StopsWhatItStarts: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        let fixtures = StartedFixtures()
        do {
            try await StartedFixtures.$current.withValue(fixtures) { try await function() }
        } catch {
            await fixtures.stopAll()
            throw error
        }
        await fixtures.stopAll()
    }
}

extension Trait where Self == StopsWhatItStarts {
    /// Stops every server and peer a test case started when it ends, whether it passed or failed.
    public static var stopsWhatItStarts: Self { StopsWhatItStarts() }
}

/// Why a fixture refused to start: the test that starts it has no `.stopsWhatItStarts` trait.
public struct UnscopedFixture: Error, CustomStringConvertible {
    public let description: String
}

extension Stoppable {
    /// Puts this fixture on the running test's list so it is stopped when the test ends; throws when
    /// the test has no `.stopsWhatItStarts` trait, so no suite can start a server it might leave running.
    public func stopsWithTest() throws {
        guard let fixtures = StartedFixtures.current else {
            throw UnscopedFixture(
                description: "\(type(of: self)) started outside a test with the .stopsWhatItStarts trait;"
                    + " add it to the @Suite so the fixture is stopped even when the test fails")
        }
        fixtures.append(self)
    }
}

/// A stop written as a closure, for a fixture that is not a type of its own or must be stopped
/// before the value that owns it is finished being built.
private final class StopAction: Stoppable {
    private let action: @Sendable () async -> Void
    init(_ action: @escaping @Sendable () async -> Void) { self.action = action }
    func stop() async { await action() }
}

/// Runs `stop` when the running test ends, passed or failed; throws like `Stoppable.stopsWithTest()`.
public func atTestEnd(_ stop: @escaping @Sendable () async -> Void) throws {
    try StopAction(stop).stopsWithTest()
}
