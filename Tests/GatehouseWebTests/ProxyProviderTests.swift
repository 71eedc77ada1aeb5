import Foundation
import HTTPTestClient
import PocketBaseTestSupport
import TestScope
import Testing

/// Issue 8: what a backend can do is declared once and is true. PocketBase cannot take a provider
/// identity from Gatehouse's OAuth flows, so in proxy mode no page offers a provider button, a
/// flow cannot even start (before, the callback answered 501 after the person signed in at the
/// provider), and the providers screen says why.
@Suite(.stopsWhatItStarts) struct ProxyProviderTests {
    @Test func aConfiguredProviderIsNotOfferedWhereTheBackendCannotTakeIt() async throws {
        try await ProxyGatehouse.run(superuser: (PocketBaseServer.superuserEmail, PocketBaseServer.superuserPassword)) {
            _, gatehouse in
            let token = try await gatehouse.adminToken()
            let created = try await HTTPTestClient(port: gatehouse.port).request(
                "POST", "/_/api/providers",
                headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                body: Array(#"{"name":"acme","type":"oidc","mode":"test","clientId":"acme"}"#.utf8))
            #expect(created.status == 201, "\(created.text)")

            let signIn = try await Browser(port: gatehouse.port).get("/auth/sign-in")
            #expect(signIn.status == 200)
            #expect(!signIn.text.contains("/auth/oauth/acme"), "a button for a flow that cannot finish")

            let start = try await Browser(port: gatehouse.port).get("/auth/oauth/acme", follow: false)
            #expect(start.status == 501)
            #expect(start.header("Location") == nil, "sent to the provider anyway")
            #expect(start.text.contains("Signing in with a provider is not supported by the backend"))

            let staff = try await gatehouse.staffBrowser()
            let providers = try await staff.get("/_/providers")
            #expect(providers.text.contains("data-sign-in-unsupported"))
            #expect(providers.text.contains("cannot take sign-ins from these providers through Gatehouse"))
        }
    }
}
