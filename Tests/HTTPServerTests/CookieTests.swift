import HTTPServer
import HTTPTestClient
import Testing

@Suite("Cookies")
struct CookieTests {
    @Test func setCookieFormatting() {
        #expect(Cookie(name: "sid", value: "abc123").headerValue == "sid=abc123; Path=/; HttpOnly; SameSite=Lax")
        let console = Cookie(name: "console", value: "v", path: "/_/", maxAge: 3600, secure: true, sameSite: .strict)
        #expect(console.headerValue == "console=v; Path=/_/; Max-Age=3600; HttpOnly; Secure; SameSite=Strict")
        let crossSite = Cookie(name: "x", value: "1", httpOnly: false, sameSite: .none)
        #expect(crossSite.headerValue == "x=1; Path=/; Secure; SameSite=None")
        // A value cannot smuggle attributes.
        #expect(Cookie(name: "a", value: "1; Domain=evil.example").headerValue.hasPrefix("a=1%3B%20Domain=evil.example; Path=/"))
        var response = Response.text("bye")
        response.deleteCookie("sid")
        #expect(response.headers["Set-Cookie"] == "sid=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax")
    }

    @Test func cookiesRoundTripThroughTheJar() async throws {
        var router = Router()
        router.post("/sign-in") { _, _ in
            Response.redirect(to: "/account")
                .settingCookie(Cookie(name: "sid", value: "s1"))
                .settingCookie(Cookie(name: "theme", value: "dark"))
        }
        router.get("/account") { request, _ in .text("sid=\(request.cookies["sid"] ?? "none")") }
        router.post("/sign-out") { _, _ in
            var response = Response.redirect(to: "/")
            response.deleteCookie("sid")
            return response
        }
        try await withServer(router: router) { _, client in
            let jar = CookieJar()
            let signIn = try await client.request("POST", "/sign-in")
            #expect(signIn.status == 303)
            #expect(signIn.header("Location") == "/account")
            #expect(signIn.setCookies == ["sid": "s1", "theme": "dark"])
            jar.update(from: signIn)
            #expect(jar.cookieHeader == "sid=s1; theme=dark")
            #expect(try await client.request("GET", "/account", headers: jar.headers).text == "sid=s1")
            jar.update(from: try await client.request("POST", "/sign-out", headers: jar.headers))
            #expect(jar["sid"] == nil)
            #expect(try await client.request("GET", "/account", headers: jar.headers).text == "sid=none")
        }
    }

    @Test func formBodyEncoding() {
        #expect(String(decoding: FormBody.encode([("a b", "x&y=z"), ("e", "é+")]), as: UTF8.self) == "a+b=x%26y%3Dz&e=%C3%A9%2B")
    }
}
