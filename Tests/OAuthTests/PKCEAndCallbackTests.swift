import OAuth
import Testing

@Suite struct PKCETests {
    @Test func rfc7636AppendixBExample() throws {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(try PKCE.challenge(for: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.verify(verifier: verifier, challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
        #expect(!PKCE.verify(verifier: verifier + "x", challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
        // `plain` would send the verifier itself as the challenge; it never verifies.
        #expect(!PKCE.verify(verifier: verifier, challenge: verifier))
    }
}

@Suite struct CallbackURLTests {
    let registered = ["https://app.com/callback", "yourapp://auth/callback", "http://127.0.0.1:5173/cb"]

    @Test(arguments: [
        "//evil.com", "/\\evil.com", "https:evil.com", "https://app@evil.com", "https://app.com.evil.com/callback",
        "http://app.com/callback", "https://app.com:444/callback", "javascript:alert(1)", "https://app.com/callback\r\nX: y",
        "https://app.com/callback/", "https://app.com/callback?x=1", "https://APP.com/callback", "yourapp://auth/callback#x",
        "otherapp://auth/callback", "http://127.0.0.1:5174/cb"
    ])
    func refusesAnythingButAnExactRegisteredURL(_ candidate: String) {
        #expect(CallbackURL.match(candidate, in: registered) == nil)
    }

    @Test func acceptsExactMatchesIncludingCustomSchemes() {
        for url in registered { #expect(CallbackURL.match(url, in: registered) == url) }
    }

    @Test func registrationRefusesDangerousURLs() {
        for url in [
            "javascript://x/y", "data://x", "https://user:pw@app.com/cb", "https://app.com/cb#frag", "relative/path",
            "https:evil.com", "https://app.com/a b", "https://app.com/\\x"
        ] {
            #expect(CallbackURL.registrationProblem(url) != nil, "\(url)")
        }
        #expect(CallbackURL.registrationProblem("yourapp://auth/callback") == nil)
    }
}
