import HTTPServer

/// Which API family a request came in by, as the request ledger names it and as a fault picks its
/// default error shape: by the path's prefix, the longest first; SuperTokens' frontend API shares
/// `/auth` with the pages and is told by the headers its SDKs always send (`rid`, `fdi-version`).
/// Asked for every request while the test controls are on, so it compares the path's bytes with
/// prefixes kept as bytes and makes no string.
struct WayIn: Sendable {
    /// `apiBasePath` of SuperTokens' frontend API, without a trailing slash, as bytes.
    private let fdiBasePath: [UInt8]

    init(fdiBasePath: String) { self.fdiBasePath = Array(fdiBasePath.utf8) }

    /// The families by path prefix, longest first.
    private static let families: [(prefix: [UInt8], name: String)] = [
        ("/_/api/test", "test-controls"), ("/_/api", "admin-api"), ("/_", "console"),
        ("/api/auth", "insforge"), ("/api/v1", "mailpit"), ("/api", "pocketbase"),
        ("/v1/mgmt", "descope-management"), ("/v2/mgmt", "descope-management"),
        ("/v1/auth", "descope"), ("/v2/keys", "descope"),
        ("/recipe", "supertokens"), ("/public/recipe", "supertokens"), ("/users", "supertokens"),
        ("/user", "supertokens"), ("/apiversion", "supertokens")
    ].map { (Array($0.utf8), $1) }

    /// The family's name: `pocketbase`, `insforge`, `descope`, `supertokens`, `supertokens-fdi`,
    /// `admin-api`, `console`, `mailpit`, `test-controls`, else `pages`.
    func name(of request: Request) -> String {
        if isFDI(request) { return "supertokens-fdi" }
        var path = request.path
        return path.withUTF8 { path in
            Self.families.first { Self.path(path, isWithin: $0.prefix) }?.name ?? "pages"
        }
    }

    /// Whether a SuperTokens frontend SDK made the request.
    func isFDI(_ request: Request) -> Bool {
        var path = request.path
        return (fdiBasePath.isEmpty || path.withUTF8 { Self.path($0, isWithin: fdiBasePath, itself: false) })
            && (request.headers["fdi-version"] != nil || request.headers["rid"] != nil)
    }

    /// Whether `path` is below `prefix` (`prefix/…`), or `prefix` itself when `itself`.
    private static func path(_ path: UnsafeBufferPointer<UInt8>, isWithin prefix: [UInt8], itself: Bool = true) -> Bool {
        guard path.count >= prefix.count, path[..<prefix.count].elementsEqual(prefix) else { return false }
        return path.count == prefix.count ? itself : path[prefix.count] == UInt8(ascii: "/")
    }
}
