import Foundation
import HTTPServer
import Secrets

/// PocketBase's realtime clients (`/api/realtime`), as far as Gatehouse has messages for them: the
/// `@oauth2` message of the SDKs' all-in-one OAuth2 flow. Each client is one server-sent-events
/// stream with PocketBase's 40-character id; it is forgotten when its stream ends (the app left,
/// Gatehouse shut down, or it went `idleTimeout` without a message, as PocketBase closes it).
actor PocketBaseRealtime {
    static let oauth2Topic = "@oauth2"

    private struct Client {
        let stream: ResponseStream
        var subscriptions: Set<String> = []
        /// Who set the subscriptions (`collection:id`); later calls must come from the same caller.
        var authID: String?
        var lastMessage = ContinuousClock.now
        /// Ends the stream after `idleTimeout` without a message; cancelled when the client goes.
        var idleWatch: Task<Void, Never>?
    }

    private var clients: [String: Client] = [:]
    private let keepAlive: Duration
    private let idleTimeout: Duration

    /// `keepAlive` also bounds how long a client that left holds its place (the next write finds it
    /// gone). PocketBase closes a connection that got no message for `idleTimeout`; its SDKs reconnect.
    init(keepAlive: Duration = .seconds(15), idleTimeout: Duration = .seconds(300)) {
        self.keepAlive = keepAlive
        self.idleTimeout = idleTimeout
    }

    /// A new client: its stream, already carrying `PB_CONNECT` with the id.
    func connect() -> ResponseStream {
        let id = Self.clientID()
        let stream = ResponseStream(keepAlive: keepAlive)
        clients[id] = Client(stream: stream)
        stream.send(Self.event(id: id, name: "PB_CONNECT", data: #"{"clientId":"\#(id)"}"#))
        stream.onTermination { [weak self] in
            Task { await self?.forget(id) }
        }
        clients[id]?.idleWatch = Task { [weak self] in await self?.closeWhenIdle(id) }
        return stream
    }

    enum SubscribeOutcome { case done, unknownClient, otherCaller }

    /// Replaces a client's subscriptions, as PocketBase's `POST /api/realtime` does.
    func subscribe(clientID: String, to topics: [String], authID: String?) -> SubscribeOutcome {
        guard var client = clients[clientID], client.stream.isOpen else { return .unknownClient }
        if let previous = client.authID, previous != authID { return .otherCaller }
        client.authID = authID
        client.subscriptions = Set(topics)
        clients[clientID] = client
        return .done
    }

    /// Sends the `@oauth2` message to the client named by the provider's `state`, once: the
    /// subscription is spent. False when no open client subscribed to it.
    func deliverOAuth2(toClient clientID: String, data: String) -> Bool {
        guard var client = clients[clientID], client.subscriptions.contains(Self.oauth2Topic) else { return false }
        client.subscriptions.remove(Self.oauth2Topic)
        client.lastMessage = .now
        clients[clientID] = client
        return client.stream.send(Self.event(id: clientID, name: Self.oauth2Topic, data: data))
    }

    var count: Int { clients.count }

    private func forget(_ id: String) {
        clients.removeValue(forKey: id)?.idleWatch?.cancel()
    }

    /// Finishes the client's stream once it went `idleTimeout` without a message.
    private func closeWhenIdle(_ id: String) async {
        while let client = clients[id] {
            let deadline = client.lastMessage.advanced(by: idleTimeout)
            if ContinuousClock.now >= deadline {
                client.stream.finish()
                return
            }
            do { try await Task.sleep(until: deadline) } catch { return }
        }
    }

    /// One message as PocketBase writes it: `id:`, `event:` and `data:` lines, no space after the colons.
    static func event(id: String, name: String, data: String) -> [UInt8] {
        Array("id:\(id)\nevent:\(name)\ndata:\(data)\n\n".utf8)
    }

    private static let idAlphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)

    /// 40 characters of `[a-zA-Z0-9]`, uniform (bytes past the last whole multiple of 62 are
    /// redrawn), like PocketBase's client ids.
    static func clientID() -> String {
        var id: [UInt8] = []
        while id.count < 40 {
            for byte in SecureRandom.bytes(48) where byte < 248 && id.count < 40 {
                id.append(idAlphabet[Int(byte) % idAlphabet.count])
            }
        }
        return String(decoding: id, as: UTF8.self)
    }
}
