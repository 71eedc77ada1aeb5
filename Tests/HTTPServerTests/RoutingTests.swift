import HTTPServer
import HTTPTestClient
import Logging
import Testing

@Suite("Routing")
struct RoutingTests {
    static func router(logger: Logger = Logger(label: "test.router")) -> Router {
        var router = Router(logger: logger)
        router.get("/users/:id") { _, params in .text("user \(params["id"] ?? "?")") }
        router.get("/users/me") { _, _ in .text("me") }
        router.post("/users/:id") { request, params in .text("posted \(params["id"] ?? "?") \(request.body.count)") }
        router.get("/files/*") { _, params in .text("rest=\(params.wildcard ?? "nil")") }
        router.get("/") { _, _ in .html("<h1>home</h1>") }
        router.get("/boom") { _, _ in throw SecretError() }
        router.get("/dup") { request, _ in .text(try request.query.single("a") ?? "none") }
        return router
    }

    @Test func parametersLiteralsAndWildcards() async throws {
        try await withServer(router: Self.router()) { _, client in
            #expect(try await client.request("GET", "/users/42").text == "user 42")
            #expect(try await client.request("GET", "/users/me").text == "me")
            #expect(try await client.request("GET", "/users/a%20b").text == "user a b")
            #expect(try await client.request("GET", "/files/css/site.css").text == "rest=css/site.css")
            #expect(try await client.request("POST", "/users/7", body: [1, 2, 3]).text == "posted 7 3")
            let home = try await client.request("GET", "/")
            #expect(home.status == 200)
            #expect(home.header("Content-Type") == "text/html; charset=utf-8")
        }
    }

    @Test func unknownPathIs404AndWrongMethodIs405WithAllow() async throws {
        try await withServer(router: Self.router()) { _, client in
            let missing = try await client.request("GET", "/nope")
            #expect(missing.status == 404)
            let wrong = try await client.request("DELETE", "/users/1")
            #expect(wrong.status == 405)
            #expect(wrong.header("Allow") == "GET, HEAD, OPTIONS, POST")
            let options = try await client.request("OPTIONS", "/users/1")
            #expect(options.status == 204)
            #expect(options.header("Allow") == "GET, HEAD, OPTIONS, POST")
        }
    }

    @Test func headIsServedByGetWithoutBody() async throws {
        try await withServer(router: Self.router()) { _, client in
            let head = try await client.request("HEAD", "/users/42")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.header("Content-Length") == "7")
            // Raw bytes prove no body follows the head on the wire.
            let raw = try await client.sendAndReadAll(
                Array("HEAD /users/42 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
            #expect(String(decoding: raw, as: UTF8.self).hasSuffix("\r\n\r\n"))
        }
    }

    @Test func thrownErrorsBecomePlain500WithoutTheirText() async throws {
        let recorder = LogRecorder()
        try await withServer(router: Self.router(logger: recorder.logger), recorder: recorder) { _, client in
            let response = try await client.request("GET", "/boom")
            #expect(response.status == 500)
            #expect(response.text == "Internal Server Error\n")
            #expect(!response.text.contains("hunter2"))
        }
        // The error is logged for operators, with the route.
        #expect(recorder.entries.contains { $0.level == .error && $0.metadata["route"] == "/boom" })
    }

    @Test func requestErrorsUseTheirStatusAndTheErrorRenderer() async throws {
        var router = Self.router()
        router.errorRenderer = { status, message in
            .json(raw: "{\"status\":\(status),\"message\":\"\(message)\"}", status: status)
        }
        try await withServer(router: router) { _, client in
            let duplicate = try await client.request("GET", "/dup?a=1&a=2")
            #expect(duplicate.status == 400)
            #expect(duplicate.text.contains("\"a\" was sent more than once"))
            #expect(duplicate.header("Content-Type") == "application/json; charset=utf-8")
            #expect(try await client.request("GET", "/dup?a=1").text == "1")
            let missing = try await client.request("GET", "/nope")
            #expect(missing.text == "{\"status\":404,\"message\":\"Not Found\"}")
        }
    }

    @Test func routeMatchingWithoutServer() throws {
        let router = Self.router()
        let match = router.route(try Request(method: .get, target: "/users/9"))
        #expect(match?.pattern == "/users/:id")
        #expect(match?.parameters["id"] == "9")
        #expect(router.route(try Request(method: .head, target: "/users/me"))?.pattern == "/users/me")
        #expect(router.route(try Request(method: .put, target: "/users/9")) == nil)
    }

    /// Routes are looked up by their first segment; routes that start with a parameter or a
    /// wildcard are candidates for every path, whenever they were registered, and the usual
    /// precedence (literal over parameter over wildcard) still decides between them.
    @Test func routesStartingWithAParameterCompeteWithLiteralOnes() throws {
        var router = Self.router()
        router.get("/:tenant/home") { _, _ in .text("tenant home") }
        router.get("/late/:x") { _, _ in .text("late") }
        router.get("/:tenant/late") { _, _ in .text("tenant late") }
        router.get("/*") { _, _ in .text("anything") }
        func pattern(_ target: String) throws -> String? { router.route(try Request(method: .get, target: target))?.pattern }
        #expect(try pattern("/users/me") == "/users/me")
        #expect(try pattern("/users/home") == "/users/:id")
        #expect(try pattern("/acme/home") == "/:tenant/home")
        #expect(try pattern("/late/x") == "/late/:x")
        #expect(try pattern("/acme/late") == "/:tenant/late")
        #expect(try pattern("/files/a/b") == "/files/*")
        #expect(try pattern("/nothing/else/here") == "/*")
        // Registering a route again replaces it and keeps every other route findable.
        router.get("/users/me") { _, _ in .text("me again") }
        #expect(try pattern("/users/me") == "/users/me")
        #expect(try pattern("/acme/home") == "/:tenant/home")
        #expect(try pattern("/nothing") == "/*")
        #expect(router.route(try Request(method: .post, target: "/users/3"))?.pattern == "/users/:id")
    }

    /// The framing headers are MHD's own, in whatever case a handler writes them; others pass.
    @Test func aHandlersFramingHeadersGiveWayToTheTrueOnes() async throws {
        var router = Router()
        router.get("/") { _, _ in
            Response(
                status: 200,
                headers: ["CONTENT-length": "999", "Transfer-Encoding": "chunked", "date": "yesterday", "X-Kept": "1"],
                body: Array("hello".utf8))
        }
        try await withServer(router: router) { _, client in
            let response = try await client.request("GET", "/")
            #expect(response.header("Content-Length") == "5")
            #expect(response.header("Transfer-Encoding") == nil)
            #expect(response.header("Date") != "yesterday")
            #expect(response.header("X-Kept") == "1")
            #expect(response.text == "hello")
        }
    }
}
