import Foundation
import HTTPServer
import HTTPTestClient
import Testing

@Suite("Request parsing")
struct RequestParsingTests {
    /// Echoes what the server decoded, so tests see exactly what a handler would.
    static let echo: Responder = { request in
        var lines = ["path=\(request.path)", "raw=\(request.rawPath)"]
        for (name, value) in request.query { lines.append("q:\(name)=\(value)") }
        if let form = try? request.form() {
            for (name, value) in form { lines.append("f:\(name)=\(value)") }
        }
        for name in request.cookies.keys.sorted() { lines.append("c:\(name)=\(request.cookies[name] ?? "")") }
        lines.append("remote=\(request.remoteAddress) loopback=\(request.isLoopbackPeer)")
        return .text(lines.joined(separator: "\n"))
    }

    @Test func queryKeepsDuplicatesAndDecodesPlusAsSpace() async throws {
        try await withServer(responder: Self.echo) { _, client in
            let text = try await client.request("GET", "/p%C3%A4th?a=1+2&a=x%2By&b=&c&%C3%A9=%E2%9C%93").text
            #expect(text.contains("path=/päth"))
            #expect(text.contains("raw=/p%C3%A4th"))
            #expect(text.contains("q:a=1 2\nq:a=x+y\nq:b=\nq:c=\nq:é=✓"))
            #expect(text.contains("remote=127.0.0.1 loopback=true"))
        }
    }

    @Test(arguments: [
        "/a%zz", "/a%4", "/a%", "/a%00", "/a%C3%28", "/ok?x=%zz", "/ok?x=%", "/ok?%FF=1", "/ok?x=%00"
    ])
    func malformedPercentEncodingIs400BeforeTheResponder(target: String) async throws {
        let called = Counter()
        let responder: Responder = { _ in
            called.increment()
            return .text("reached")
        }
        try await withServer(responder: responder) { _, client in
            let response = try await client.send("GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(response.status == 400)
            #expect(!response.text.contains("reached"))
        }
        #expect(called.value == 0)
    }

    @Test func urlencodedFormIsStrictlyDecoded() async throws {
        try await withServer(responder: Self.echo) { _, client in
            let body = FormBody.encode([("email", "a+b@example.com"), ("name", "Zoë Smith"), ("x", "1&2=3")])
            let text = try await client.request(
                "POST", "/f", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: body
            ).text
            #expect(text.contains("f:email=a+b@example.com\nf:name=Zoë Smith\nf:x=1&2=3"))
        }
        let bad = try Request(
            method: .post, target: "/", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array("a=%zz".utf8))
        #expect(throws: RequestError.malformedEncoding) { try bad.form() }
        let notUTF8 = try Request(
            method: .post, target: "/", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array("a=%FF".utf8))
        #expect(throws: RequestError.malformedEncoding) { try notUTF8.form() }
        let json = try Request(method: .post, target: "/", headers: ["Content-Type": "application/json"], body: Array("{}".utf8))
        #expect(throws: RequestError.unsupportedMediaType) { try json.form() }
    }

    @Test func multipartFormHasFieldsAndFiles() async throws {
        let (contentType, body) = FormBody.multipart(
            [("name", "Ada"), ("bio", "line1\r\nline2")],
            files: [(field: "avatar", filename: "a.png", contentType: "image/png", bytes: [0x89, 0x50, 0x0D, 0x0A, 0x00])]
        )
        let responder: Responder = { request in
            do throws(RequestError) {
                let form = try request.multipartForm()
                let file = form.files.first
                return .text(
                    "\(form.fields["name"] ?? "")|\(form.fields["bio"] ?? "")|\(file?.fieldName ?? "")|\(file?.filename ?? "")|\(file?.contentType ?? "")|\(file?.bytes ?? [])"
                )
            } catch {
                return .text("error \(error)", status: error.status)
            }
        }
        try await withServer(responder: responder) { _, client in
            let response = try await client.request("POST", "/m", headers: [("Content-Type", contentType)], body: body)
            #expect(response.text == "Ada|line1\r\nline2|avatar|a.png|image/png|[137, 80, 13, 10, 0]")
        }
        let truncated = try Request(
            method: .post, target: "/", headers: ["Content-Type": contentType], body: Array(body.dropLast(10)))
        #expect(throws: RequestError.malformedMultipart) { try truncated.form() }
    }

    @Test func duplicateKeysAreDetected() throws {
        let request = try Request(method: .get, target: "/?role=user&role=admin&one=1")
        #expect(request.query["role"] == nil)
        #expect(request.query.values("role") == ["user", "admin"])
        #expect(throws: RequestError.duplicateField("role")) { try request.query.single("role") }
        #expect(try request.query.single("one") == "1")
        #expect(try request.query.single("missing") == nil)
        #expect(request.query.allKeys == ["role", "one"])
    }

    @Test func cookiesKeepTheFirstOfADuplicate() async throws {
        try await withServer(responder: Self.echo) { _, client in
            let text = try await client.request("GET", "/", headers: [("Cookie", "sid=first; theme=\"dark\"; sid=second")]).text
            #expect(text.contains("c:sid=first\nc:theme=dark"))
        }
    }

    /// Spaces and tabs around names and values go, empty and nameless pairs are skipped, `=` may
    /// appear in a value, quotes around a value go, and the first line's cookie wins over a later one.
    @Test func cookiePairsAreTrimmedUnquotedAndSkippedWhenMalformed() throws {
        let request = try Request(
            method: .get, target: "/",
            headers: HTTPHeaders([
                ("Cookie", " ; a = 1 ;;\tb\t=x=y; =nameless; novalue; c=\"\"; d=\"q; e=\u{e9}t\u{e9} "),
                ("Cookie", "a=2; f=\"quoted value\"")
            ]))
        #expect(request.cookies == ["a": "1", "b": "x=y", "c": "", "d": "\"q", "e": "\u{e9}t\u{e9}", "f": "quoted value"])
    }

    @Test func jsonNeedsAJSONContentType() throws {
        struct Login: Decodable, Equatable {
            let email: String
            let when: Date
        }
        let good = try Request(
            method: .post, target: "/", headers: ["Content-Type": "application/json; charset=utf-8"],
            body: Array(#"{"email":"a@b.c","when":"2026-11-21T22:21:30.584Z"}"#.utf8))
        #expect(try good.decodeJSON(Login.self).email == "a@b.c")
        let wrongType = try Request(method: .post, target: "/", headers: ["Content-Type": "text/plain"], body: Array("{}".utf8))
        #expect(throws: RequestError.unsupportedMediaType) { try wrongType.decodeJSON(Login.self) }
        let missing = try Request(
            method: .post, target: "/", headers: ["Content-Type": "application/json"], body: Array("{}".utf8))
        #expect(throws: RequestError.invalidJSON("missing field email")) { try missing.decodeJSON(Login.self) }
    }

    /// The media type is read without parameters or blanks, in lower case; JSON is `application/json`
    /// or any `…+json` type, whatever the letter case.
    @Test(arguments: [
        ("application/json", "application/json", true),
        (" Application/JSON ; charset=UTF-8", "application/json", true),
        ("application/vnd.api+JSON", "application/vnd.api+json", true),
        ("text/plain", "text/plain", false),
        ("application/jsonp", "application/jsonp", false),
        ("multipart/form-data; boundary=X", "multipart/form-data", false)
    ])
    func mediaTypeIsLowercasedWithoutParameters(header: String, type: String, json: Bool) throws {
        let request = try Request(method: .post, target: "/", headers: ["Content-Type": header], body: Array("{}".utf8))
        #expect(request.mediaType == type)
        #expect(request.declaresJSON == json)
        #expect(try Request(method: .post, target: "/", body: Array("{}".utf8)).declaresJSON == false)
    }

    @Test func headersAreCaseInsensitiveAndOrdered() {
        var headers = HTTPHeaders()
        headers.add("Set-Cookie", "a=1")
        headers.add("set-cookie", "b=2")
        headers.add("X-One", "1")
        #expect(headers["SET-COOKIE"] == "a=1")
        #expect(headers.values(for: "Set-Cookie") == ["a=1", "b=2"])
        headers.replaceOrAdd("set-COOKIE", "c=3")
        #expect(headers.values(for: "Set-Cookie") == ["c=3"])
        headers.remove("x-one")
        #expect(headers["X-One"] == nil)
        #expect(headers.count == 1)
        // Only letters fold: `[` and `{` differ by the same bit as `A` and `a`.
        headers.add("X-[", "bracket")
        #expect(headers["x-["] == "bracket" && headers["X-{"] == nil)
    }
}

/// A thread-safe counter for checking whether a responder ran.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
