import AuthCore
import Foundation
import HTTPServer
import Secrets

/// Faults put in the way of requests (`InjectedFault`): added, listed and removed by a test suite
/// or staff, each act audited; the server's dispatch spends them (`FaultBoard.take`).
public struct TestFaults: Sendable {
    let env: Accounts
    let caller: TestControlCaller

    public init(env: Accounts, caller: TestControlCaller) { (self.env, self.caller) = (env, caller) }

    /// What a caller asks for: `InjectedFault` without its id, time and use count.
    public struct Spec: Sendable {
        var method: String?
        var path: String
        var match: String?
        var status: Int?
        var body: JSONValue?
        var delayMs: Int?
        public var count: Int?

        public init(
            method: String?, path: String, match: String?, status: Int?, body: JSONValue?, delayMs: Int?, count: Int?
        ) {
            (self.method, self.path, self.match, self.status) = (method, path, match, status)
            (self.body, self.delayMs, self.count) = (body, delayMs, count)
        }
    }

    /// The longest delay a fault may hold a request for, in milliseconds.
    static let maximumDelayMs = 60_000
    /// The most requests one fault may take.
    static let maximumCount = 10_000
    /// Paths the test controls answer on, which no fault may take (else a fault could lock them out).
    public static let exempt = ["/_/api/test", "/_/testing"]

    /// Adds a fault; `.validation` naming every field that is wrong, nothing added then.
    public func add(_ asked: Spec, request: Request) async throws -> InjectedFault {
        let fault = try Self.validated(asked, now: env.clock())
        guard env.faults.add(fault) else {
            throw AuthError.validation([
                FieldError(field: "path", message: "At most \(FaultBoard.capacity) faults may be in force: remove one first.")
            ])
        }
        await caller.record(
            .testFaultAdded, in: env, request: request,
            data: [
                "fault": .string(fault.id), "path": .string(fault.path),
                "method": fault.method.map { .string($0.rawValue) } ?? .null,
                "status": fault.status.map { .number(Double($0)) } ?? .null, "count": .number(Double(fault.remaining))
            ])
        return fault
    }

    /// Every fault in force, oldest first.
    public func list() -> [InjectedFault] { env.faults.all }

    /// Removes the fault `id`; false when there is none.
    public func remove(id: String, request: Request) async -> Bool {
        guard env.faults.remove(id: id) else { return false }
        await caller.record(.testFaultRemoved, in: env, request: request, data: ["fault": .string(id)])
        return true
    }

    /// The fault `asked` describes, or every problem with it.
    static func validated(_ asked: Spec, now: Date) throws -> InjectedFault {
        var problems: [FieldError] = []
        let method = asked.method.flatMap { $0.isEmpty || $0 == "*" ? nil : HTTPMethod(rawValue: $0) }
        if let method, method.rawValue.count > 16 || !method.rawValue.allSatisfy({ $0.isLetter }) {
            problems.append(FieldError(field: "method", message: "Name an HTTP method such as GET or POST, or * for any."))
        }
        let path = asked.path
        if !path.hasPrefix("/") || path.utf8.count > 512 {
            problems.append(FieldError(field: "path", message: "Give a path of up to 512 characters that starts with /."))
        } else if exempt.contains(where: { path.hasPrefix($0) }) {
            problems.append(FieldError(field: "path", message: "The test controls themselves cannot be faulted."))
        }
        let wildcard = path.contains("*") || path.contains("?")
        let match = asked.match.map { InjectedFault.PathMatch(rawValue: $0) } ?? (wildcard ? .glob : .exact)
        if match == nil {
            problems.append(FieldError(field: "match", message: "Use exact, prefix or glob."))
        }
        if let status = asked.status, !(200...599).contains(status) {
            problems.append(FieldError(field: "status", message: "Use a status from 200 to 599."))
        }
        let delay = asked.delayMs ?? 0
        if !(0...maximumDelayMs).contains(delay) {
            problems.append(FieldError(field: "delayMs", message: "Use a delay from 0 to \(maximumDelayMs) ms."))
        }
        if asked.status == nil, delay == 0 {
            problems.append(FieldError(field: "status", message: "Give a status, a delay, or both."))
        }
        let count = asked.count ?? 1
        if !(1...maximumCount).contains(count) {
            problems.append(FieldError(field: "count", message: "Use a count from 1 to \(maximumCount)."))
        }
        guard problems.isEmpty, let match else { throw AuthError.validation(problems) }
        return InjectedFault(
            id: SecureRandom.userID(), method: method, path: path, match: match, status: asked.status,
            body: asked.body, delayMs: delay, remaining: count, createdAt: now)
    }
}
