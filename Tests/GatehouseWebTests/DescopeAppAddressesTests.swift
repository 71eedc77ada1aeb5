import Testing

@testable import GatehouseWeb

/// Where Descope's links may open: loopback origins by default, listed origins exactly, and nothing
/// that only looks like either (a longer host, user info, a fragment, another port or scheme).
@Suite struct DescopeAppAddressesTests {
    private func addresses(listing origins: [String] = []) -> DescopeAppAddresses {
        var configuration = WebConfiguration(publicBaseURL: "https://auth.example", templatesDirectory: "", publicDirectory: "")
        configuration.descopeRedirectOrigins = origins
        return DescopeAppAddresses(configuration: configuration, registry: nil)
    }

    @Test func loopbackOriginsOnAnyPortAreAllowed() async throws {
        for uri in ["http://localhost:3000/cb", "https://127.0.0.1/cb?x=1", "http://[::1]:8080/", "http://LOCALHOST:1/a"] {
            #expect(try await addresses().allowsLink(uri), "\(uri)")
        }
    }

    @Test func addressesThatOnlyLookLoopbackOrListedAreRefused() async throws {
        let listed = addresses(listing: ["https://app.example:8443"])
        for uri in [
            "http://localhost.evil.example/cb", "http://127.0.0.1.evil.example/cb", "http://localhost@evil.example/cb",
            "http://localhost:3000/cb#fragment", "ftp://localhost/cb", "https://app.example/cb", "http://app.example:8443/cb",
            "https://app.example:8443.evil.example/cb", "javascript://localhost/%0aalert(1)", "/relative", ""
        ] {
            #expect(try await !listed.allowsLink(uri), "\(uri)")
        }
        #expect(try await listed.allowsLink("https://APP.example:8443/descope/done?next=1"))
    }

    @Test func originsAreComparedWithoutTheSchemesDefaultPort() {
        #expect(DescopeAppAddresses.origin(of: "https://App.Example:443/x") == "https://app.example")
        #expect(DescopeAppAddresses.origin(of: "http://localhost:80") == "http://localhost")
        #expect(DescopeAppAddresses.origin(of: "http://[::1]:8080/") == "http://[::1]:8080")
        #expect(DescopeAppAddresses.origin(of: "myapp://done/cb") == "myapp://done")
        #expect(DescopeAppAddresses.origin(of: "not a url") == nil)
    }
}
