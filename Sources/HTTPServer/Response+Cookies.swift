extension Response {
    /// Adds a `Set-Cookie` field for `cookie`.
    public mutating func setCookie(_ cookie: Cookie) {
        headers.add("Set-Cookie", cookie.headerValue)
    }

    /// Adds a `Set-Cookie` field that deletes `name` (`Max-Age=0`).
    public mutating func deleteCookie(_ name: String, path: String = "/") {
        setCookie(.expired(name: name, path: path))
    }

    /// A copy with `cookie` set, for chaining after a static constructor.
    public func settingCookie(_ cookie: Cookie) -> Response {
        var copy = self
        copy.setCookie(cookie)
        return copy
    }
}
