import Foundation

/// Keeps cookies across test requests like a browser would (without domain/path scoping):
/// `Set-Cookie` stores, `Max-Age=0` deletes, `cookieHeader` produces the `Cookie` line.
public final class CookieJar: Sendable {
    private let storage = LockedCookies()

    public init() {}

    /// Applies every `Set-Cookie` of `response`.
    public func update(from response: TestResponse) {
        for line in response.headerValues("Set-Cookie") {
            guard let cookie = SetCookieLine(line) else { continue }
            storage.apply(cookie)
        }
    }

    /// The current value of `name`.
    public subscript(name: String) -> String? {
        storage.snapshot().first { $0.0 == name }?.1
    }

    /// `a=1; b=2`, or nil when the jar is empty.
    public var cookieHeader: String? {
        let cookies = storage.snapshot()
        return cookies.isEmpty ? nil : cookies.map { "\($0.0)=\($0.1)" }.joined(separator: "; ")
    }

    /// `[("Cookie", …)]` or `[]`, to splice into a request's headers.
    public var headers: [(String, String)] {
        cookieHeader.map { [("Cookie", $0)] } ?? []
    }
}

/// Ordered cookie storage behind a lock.
private final class LockedCookies: @unchecked Sendable {
    private let lock = NSLock()
    private var cookies: [(String, String)] = []

    func apply(_ cookie: SetCookieLine) {
        lock.lock()
        defer { lock.unlock() }
        cookies.removeAll { $0.0 == cookie.name }
        if !cookie.deletes {
            cookies.append((cookie.name, cookie.value))
        }
    }

    func snapshot() -> [(String, String)] {
        lock.lock()
        defer { lock.unlock() }
        return cookies
    }
}
