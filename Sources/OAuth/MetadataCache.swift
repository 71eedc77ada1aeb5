import Foundation

/// Discovery documents and JWKS per URL, kept for a while so a sign-in is not three extra requests.
actor MetadataCache {
    private let lifetime: TimeInterval
    private var documents: [String: (DiscoveryDocument, Date)] = [:]
    private var keySets: [String: (JSONWebKeySet, Date)] = [:]

    init(lifetime: TimeInterval) { self.lifetime = lifetime }

    func discovery(issuer: String, now: Date, _ fetch: @Sendable () async throws -> DiscoveryDocument) async throws
        -> DiscoveryDocument
    {
        if let (document, fetched) = documents[issuer], now.timeIntervalSince(fetched) < lifetime { return document }
        let document = try await fetch()
        documents[issuer] = (document, now)
        return document
    }

    func keys(url: String, now: Date, refresh: Bool, _ fetch: @Sendable () async throws -> JSONWebKeySet) async throws
        -> JSONWebKeySet
    {
        if !refresh, let (keys, fetched) = keySets[url], now.timeIntervalSince(fetched) < lifetime { return keys }
        let keys = try await fetch()
        keySets[url] = (keys, now)
        return keys
    }
}
