import Foundation
import HTTPServer
import HTTPTestClient
import Testing

@Suite("Static files")
struct StaticFilesTests {
    /// A temp tree: root/{site.css, app.js, logo.svg, .hidden, sub/, escape -> ../secret.txt}
    /// with `secret.txt` beside the root (outside it).
    static func makeTree() throws -> (root: String, cleanup: @Sendable () -> Void) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("static-\(UUID().uuidString)")
        let root = base.appendingPathComponent("public")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("body { color: red }".utf8).write(to: root.appendingPathComponent("site.css"))
        try Data("console.log(1)".utf8).write(to: root.appendingPathComponent("app.js"))
        try Data("<svg/>".utf8).write(to: root.appendingPathComponent("logo.svg"))
        try Data("hidden".utf8).write(to: root.appendingPathComponent(".hidden"))
        try Data("nested".utf8).write(to: root.appendingPathComponent("sub/n.txt"))
        try Data("top secret".utf8).write(to: base.appendingPathComponent("secret.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("escape.txt").path,
            withDestinationPath: base.appendingPathComponent("secret.txt").path)
        return (root.path, { try? FileManager.default.removeItem(at: base) })
    }

    static func router(root: String) -> Router {
        let files = StaticFiles(root: root)
        var router = Router()
        router.get("/static/*") { request, params in
            guard let response = files.response(for: params.wildcard ?? "", request: request) else {
                return .text("Not Found\n", status: 404)
            }
            return response
        }
        return router
    }

    @Test func servesFilesWithContentTypeETagAnd304() async throws {
        let tree = try Self.makeTree()
        defer { tree.cleanup() }
        try await withServer(router: Self.router(root: tree.root)) { _, client in
            let css = try await client.request("GET", "/static/site.css")
            #expect(css.status == 200)
            #expect(css.text == "body { color: red }")
            #expect(css.header("Content-Type") == "text/css; charset=utf-8")
            #expect(css.header("Cache-Control") == "public, max-age=3600")
            #expect(css.header("Last-Modified")?.hasSuffix(" GMT") == true)
            let etag = try #require(css.header("ETag"))
            let cached = try await client.request("GET", "/static/site.css", headers: [("If-None-Match", etag)])
            #expect(cached.status == 304)
            #expect(cached.body.isEmpty)
            let stale = try await client.request("GET", "/static/site.css", headers: [("If-None-Match", "\"other\"")])
            #expect(stale.status == 200)
            #expect(try await client.request("GET", "/static/app.js").header("Content-Type") == "text/javascript; charset=utf-8")
            #expect(try await client.request("GET", "/static/logo.svg").header("Content-Type") == "image/svg+xml")
            #expect(try await client.request("GET", "/static/sub/n.txt").text == "nested")
        }
    }

    @Test(arguments: [
        "/static/../Package.swift", "/static/%2e%2e/secret.txt", "/static/%252e%252e/secret.txt",
        "/static/..%2fsecret.txt", "/static/sub/..%2F..%2Fsecret.txt", "/static/.hidden", "/static/sub",
        "/static/sub/", "/static/", "/static/escape.txt", "/static/nope.css", "/static/sub%5Cn.txt"
    ])
    func refusesAnythingOutsideVisibleRegularFiles(target: String) async throws {
        let tree = try Self.makeTree()
        defer { tree.cleanup() }
        try await withServer(router: Self.router(root: tree.root)) { _, client in
            let response = try await client.send("GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(response.status == 404)
            #expect(!response.text.contains("secret"))
        }
    }
}
