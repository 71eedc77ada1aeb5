import HTTPServer

/// Which API family a request came in by, as the request ledger names it and as a fault picks its
/// default error shape: by the path's prefix, the longest first; SuperTokens' frontend API shares
/// `/auth` with the pages and is told by the headers its SDKs always send (`rid`, `fdi-version`).
struct WayIn: Sendable {
    /// `apiBasePath` of SuperTokens' frontend API, without a trailing slash.
    let fdiBasePath: String

    /// The families by path prefix, longest first.
    private static let families: [(prefix: String, name: String)] = [
        ("/_/api/test", "test-controls"), ("/_/api", "admin-api"), ("/_", "console"),
        ("/api/auth", "insforge"), ("/api/v1", "mailpit"), ("/api", "pocketbase"),
        ("/v1/mgmt", "descope-management"), ("/v2/mgmt", "descope-management"),
        ("/v1/auth", "descope"), ("/v2/keys", "descope"),
        ("/recipe", "supertokens"), ("/public/recipe", "supertokens"), ("/users", "supertokens"),
        ("/user", "supertokens"), ("/apiversion", "supertokens")
    ]

    /// The family's name: `pocketbase`, `insforge`, `descope`, `supertokens`, `supertokens-fdi`,
    /// `admin-api`, `console`, `mailpit`, `test-controls`, else `pages`.
    func name(of request: Request) -> String {
        if isFDI(request) { return "supertokens-fdi" }
        let path = request.path
        for family in Self.families where path == family.prefix || path.hasPrefix(family.prefix + "/") {
            return family.name
        }
        return "pages"
    }

    /// Whether a SuperTokens frontend SDK made the request.
    func isFDI(_ request: Request) -> Bool {
        (request.path.hasPrefix(fdiBasePath + "/") || fdiBasePath.isEmpty)
            && (request.headers["fdi-version"] != nil || request.headers["rid"] != nil)
    }
}
