import Foundation
import HTTPServer
import WebAuthn

extension RelyingParty {
    /// Gatehouse as the relying party a request reached: the RP id is the host name it was asked
    /// for (the server answers only allow-listed names: loopback names, the public URL's host,
    /// `--allowed-host`), and the origins are that host as the page was served from it and the
    /// public URL's origin (TLS may end at a proxy in front). Nil for an IP literal, which WebAuthn
    /// does not take as an RP id: the pages then ask for a host name.
    static func serving(_ request: Request, configuration: WebConfiguration) -> RelyingParty? {
        guard let host = request.headers["Host"], let name = hostName(host), !isIPLiteral(name) else { return nil }
        let scheme = configuration.usesTLS ? "https" : "http"
        var origins: Set<String> = ["\(scheme)://\(host.lowercased())"]
        if let url = URL(string: configuration.publicBaseURL), let publicHost = url.host?.lowercased(), publicHost == name,
            let publicScheme = url.scheme?.lowercased()
        {
            origins.insert("\(publicScheme)://\(publicHost)" + (url.port.map { ":\($0)" } ?? ""))
        }
        return RelyingParty(id: name, origins: origins)
    }

    /// The display name credentials are saved under.
    static let displayName = "Gatehouse"

    private static func hostName(_ host: String) -> String? {
        let lowered = host.lowercased()
        if lowered.hasPrefix("[") { return lowered }
        let name = lowered.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        return name.isEmpty ? nil : (name.hasSuffix(".") ? String(name.dropLast()) : name)
    }

    private static func isIPLiteral(_ name: String) -> Bool {
        name.hasPrefix("[") || name.split(separator: ".").allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }
}
