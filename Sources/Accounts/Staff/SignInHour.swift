import Foundation
import Store

/// Sign-ins in one hour, for the console's sign-in chart (`AuditLog.signInsPerHour`).
public struct SignInHour: Sendable, Equatable {
    /// The hour's start, UTC.
    public var hour: Date
    public var completed: Int
    public var failed: Int

    init(_ row: HourlySignIns) { (hour, completed, failed) = (row.hour, row.completed, row.failed) }
}
