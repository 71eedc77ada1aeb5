import Foundation

/// The events counted under one rate-limit key inside a time window.
public struct RateWindow: Sendable, Equatable {
    public var count: Int
    public var oldest: Date?
    public var newest: Date?

    public init(count: Int, oldest: Date?, newest: Date?) {
        self.count = count
        self.oldest = oldest
        self.newest = newest
    }
}
