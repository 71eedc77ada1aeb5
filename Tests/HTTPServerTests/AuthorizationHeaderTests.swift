import HTTPServer
import Testing

@Suite("The Authorization header's token")
struct AuthorizationHeaderTests {
    private func request(_ authorization: String?) throws -> Request {
        var headers = HTTPHeaders()
        if let authorization { headers.add("Authorization", authorization) }
        return try Request(method: .get, target: "/", headers: headers)
    }

    @Test func bearerTokenTakesTheSchemeInAnyCaseAndTrimsBlanks() throws {
        #expect(try request("Bearer abc.def").bearerToken == "abc.def")
        #expect(try request("bearer abc").bearerToken == "abc")
        #expect(try request("BEARER \t abc \t").bearerToken == "abc")
        #expect(try request("  Bearer P2x:eyJ.a.b  ").bearerToken == "P2x:eyJ.a.b")
        // A token that is not ASCII keeps its last character.
        #expect(try request("Bearer tökén").bearerToken == "tökén")
    }

    @Test func bearerTokenIsNilWithoutABearerToken() throws {
        #expect(try request(nil).bearerToken == nil)
        #expect(try request("Bearer").bearerToken == nil)
        #expect(try request("Bearer    ").bearerToken == nil)
        #expect(try request("Basic dXNlcjpwdw==").bearerToken == nil)
        #expect(try request("Bearerabc").bearerToken == nil)
        #expect(try request("abc.def").bearerToken == nil)
    }

    @Test func bareOrBearerTokenAlsoTakesABareToken() throws {
        #expect(try request("abc.def").bareOrBearerToken == "abc.def")
        #expect(try request(" abc.def\t").bareOrBearerToken == "abc.def")
        #expect(try request("Bearer abc.def").bareOrBearerToken == "abc.def")
        #expect(try request("Bearer").bareOrBearerToken == "Bearer")
        #expect(try request("   ").bareOrBearerToken == nil)
        #expect(try request(nil).bareOrBearerToken == nil)
    }
}
