import Foundation
import HTTPServer
import Secrets
import Testing

@testable import Accounts
@testable import GatehouseWeb

/// The pure parts of an app's hosted page (issue 25, item 1): the accent colour's readable
/// companions, the branding checks every way of configuring an app shares, and the sealed cookie
/// that carries the app's request through Gatehouse's pages.
@Suite struct HostedAppBrandingTests {
    static let surfaces = [AppTheme.lightSurface, AppTheme.darkSurface]

    @Test(arguments: ["#0f766e", "#ffeb3b", "#000000", "#ffffff", "#777777", "#4f46e5", "#ff0000", "#00ff00", "#1e90ff"])
    func everyAccentKeepsAAContrast(hex: String) throws {
        let theme = try #require(AppTheme(accent: hex))
        let accent = try #require(AppTheme.RGB(hex: theme.accent))
        let onAccent = try #require(AppTheme.RGB(hex: theme.accentText))
        #expect(accent.contrast(with: onAccent) >= 4.5, "text on \(hex)")
        let hover = try #require(AppTheme.RGB(hex: theme.accentHover))
        #expect(hover.contrast(with: onAccent) >= 4.5, "text on hovered \(hex)")
        #expect(try #require(AppTheme.RGB(hex: theme.linkLight)).contrast(with: AppTheme.lightSurface) >= 4.5)
        #expect(try #require(AppTheme.RGB(hex: theme.linkDark)).contrast(with: AppTheme.darkSurface) >= 4.5)
    }

    @Test func textIsWhiteOnDarkAccentsAndBlackOnLightOnes() throws {
        #expect(try #require(AppTheme(accent: "#0f766e")).accentText == "#ffffff")
        #expect(try #require(AppTheme(accent: "#ffeb3b")).accentText == "#000000")
        // A readable accent is used for links as it is.
        #expect(try #require(AppTheme(accent: "#0f766e")).linkLight == "#0f766e")
        #expect(AppTheme(accent: "teal") == nil && AppTheme(accent: "#12345") == nil)
    }

    @Test func brandingChecksAcceptHTTPSAndLocalhostOnly() {
        #expect(AppBranding.linkProblem("https://notes.example/logo.svg") == nil)
        #expect(AppBranding.linkProblem("http://localhost:5173/logo.png") == nil)
        #expect(AppBranding.linkProblem("http://127.0.0.1/logo.png") == nil)
        #expect(AppBranding.linkProblem("http://notes.example/logo.png") != nil)
        #expect(AppBranding.linkProblem("javascript:alert(1)") != nil)
        #expect(AppBranding.linkProblem("https://user:pw@notes.example/") != nil)
        #expect(AppBranding.linkProblem("/logo.png") != nil)
        #expect(AppBranding.normalizedColor(" #0F766E ") == "#0f766e")
        #expect(AppBranding.normalizedColor("#0f766") == nil && AppBranding.normalizedColor("0f766e0") == nil)
    }

    @Test func anAppBodyReportsBadBrandingByFieldAndStoresItNormalized() {
        let body = AppBody(
            id: "notes", name: "Notes app", callbackURLs: ["https://notes.example/cb"], legacyCallback: nil,
            logoURL: "http://notes.example/logo.png", accentColor: "teal", termsURL: " ", privacyURL: "https://notes.example/p")
        #expect(Set(body.problems(id: "notes").keys) == ["logoURL", "accentColor"])
        let good = AppBody(
            id: "notes", name: "Notes app", callbackURLs: ["https://notes.example/cb"], legacyCallback: nil,
            accentColor: "#0F766E",
            termsURL: "")
        let record = good.record(id: "notes", at: Date())
        #expect(good.problems(id: "notes").isEmpty)
        #expect(record.accentColor == "#0f766e" && record.termsURL == nil && record.logoURL == nil)
    }

    @Test func theFlowCookieOpensOnlyAsSealedAndWithinItsLifetime() throws {
        let flow = AppFlow(hasher: try KeyedHash(key: [UInt8](repeating: 7, count: KeyedHash.keyLength)))
        let other = AppFlow(hasher: try KeyedHash(key: [UInt8](repeating: 8, count: KeyedHash.keyLength)))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let ticket = AppFlow.Ticket(
            request: AppSignInRequest(
                appID: "notes", callbackURL: "http://127.0.0.1:9/callback", clientType: "web",
                codeChallenge: String(repeating: "a", count: 43), codeName: nil),
            started: now)
        let sealed = flow.sealed(ticket)
        #expect(flow.opened(sealed, now: now.addingTimeInterval(60)) == ticket)
        #expect(other.opened(sealed, now: now) == nil, "another key's seal")
        #expect(flow.opened(sealed, now: now.addingTimeInterval(AppFlow.lifetime + 1)) == nil, "expired")
        // A browser that rewrites the callback cannot reseal it.
        let payload = String(sealed.prefix { $0 != "." })
        var forged = ticket
        forged.request.callbackURL = "https://evil.example/cb"
        let forgedPayload = String(flow.sealed(forged).prefix { $0 != "." })
        #expect(flow.opened(forgedPayload + sealed.dropFirst(payload.count), now: now) == nil)
        #expect(flow.opened("garbage", now: now) == nil && flow.opened(nil, now: now) == nil)
    }
}
