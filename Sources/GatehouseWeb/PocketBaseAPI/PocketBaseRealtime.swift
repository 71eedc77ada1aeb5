import AuthCore
import Foundation
import HTTPServer
import Secrets

/// PocketBase's realtime clients (`/api/realtime`): the `@oauth2` message of the SDKs' all-in-one
/// OAuth2 flow, and `users` record events (`PocketBaseRecordEvents`) when the backend has a feed of
/// account changes. Each client is one server-sent-events stream with PocketBase's 40-character
/// id; it is forgotten when its stream ends (the app left, Gatehouse shut down, or it went
/// `idleTimeout` without a message, as PocketBase closes it). The feed is read only while some
/// client has a subscription about `users`.
actor PocketBaseRealtime {
    static let oauth2Topic = "@oauth2"

    private struct Client {
        let stream: ResponseStream
        var topics: [PocketBaseTopic] = []
        /// Who set the subscriptions (`collection:id`); later calls must come from the same caller.
        var authID: String?
        /// The token and user of the last subscription request, and the feed's position then.
        var token: String?
        var owner: UserID?
        var since = UserChangePosition(0)
        var lastMessage = ContinuousClock.now
        /// Ends the stream after `idleTimeout` without a message; cancelled when the client goes.
        var idleWatch: Task<Void, Never>?

        var followsUsers: Bool { topics.contains(where: \.isAboutUsers) }
    }

    private var clients: [String: Client] = [:]
    private let keepAlive: Duration
    private let idleTimeout: Duration
    /// Where record events come from; nil when the backend cannot tell account changes.
    private let records: PocketBaseRecordEvents?
    /// Reads the feed while a client follows `users`; `pumpRun` tells a cancelled run's late
    /// batch from the current run's.
    private var pump: Task<Void, Never>?
    private var pumpRun = 0

    /// `keepAlive` also bounds how long a client that left holds its place (the next write finds it
    /// gone). PocketBase closes a connection that got no message for `idleTimeout`; its SDKs reconnect.
    init(keepAlive: Duration = .seconds(15), idleTimeout: Duration = .seconds(300), records: PocketBaseRecordEvents? = nil) {
        self.keepAlive = keepAlive
        self.idleTimeout = idleTimeout
        self.records = records
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

    /// Replaces a client's subscriptions, as PocketBase's `POST /api/realtime` does; record events
    /// follow from changes made after this call.
    func subscribe(clientID: String, to topics: [String], caller: PocketBaseCaller, token: String?) async
        -> SubscribeOutcome
    {
        let since = try? await records?.feed.latest()
        guard var client = clients[clientID], client.stream.isOpen else { return .unknownClient }
        let authID = Self.authID(caller)
        if let previous = client.authID, previous != authID { return .otherCaller }
        client.authID = authID
        client.token = token
        if case .user(let signedIn, _) = caller { client.owner = signedIn.user.id } else { client.owner = nil }
        // PocketBase skips empty topics and keeps one of each.
        var seen = Set<String>()
        client.topics = topics.filter { !$0.isEmpty && seen.insert($0).inserted }.map(PocketBaseTopic.init)
        client.since = since ?? client.since
        clients[clientID] = client
        if client.followsUsers { followUsers(from: client.since) } else { stopFollowingUsersUnlessNeeded() }
        return .done
    }

    /// Sends the `@oauth2` message to the client named by the provider's `state`, once: the
    /// subscription is spent. False when no open client subscribed to it.
    func deliverOAuth2(toClient clientID: String, data: String) -> Bool {
        guard var client = clients[clientID], client.topics.contains(where: { $0.name == Self.oauth2Topic }) else {
            return false
        }
        client.topics.removeAll { $0.name == Self.oauth2Topic }
        client.lastMessage = .now
        clients[clientID] = client
        return client.stream.send(Self.event(id: clientID, name: Self.oauth2Topic, data: data))
    }

    var count: Int { clients.count }

    private func forget(_ id: String) {
        clients.removeValue(forKey: id)?.idleWatch?.cancel()
        stopFollowingUsersUnlessNeeded()
    }

    /// Starts reading the feed after `position` unless it is read already.
    private func followUsers(from position: UserChangePosition) {
        guard let records, pump == nil else { return }
        pumpRun += 1
        let run = pumpRun
        pump = Task { [weak self] in await self?.pumpChanges(records, from: position, run: run) }
    }

    /// Stops reading the feed once no client follows `users`.
    private func stopFollowingUsersUnlessNeeded() {
        guard let running = pump, !clients.values.contains(where: \.followsUsers) else { return }
        running.cancel()
        pump = nil
    }

    private func pumpChanges(_ records: PocketBaseRecordEvents, from start: UserChangePosition, run: Int) async {
        var position = start
        while !Task.isCancelled {
            do {
                let (changes, through) = try await records.feed.changes(after: position)
                position = through
                await deliver(changes, records, run: run)
            } catch is CancellationError {
                return
            } catch {
                // A read that failed (the file busy past its timeout) is tried again.
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Each following client's events for `changes`, in order.
    private func deliver(_ changes: [UserChange], _ records: PocketBaseRecordEvents, run: Int) async {
        guard !changes.isEmpty else { return }
        let subscribers = clients.filter { $0.value.followsUsers }.map { id, client in
            (
                id,
                PocketBaseRecordEvents.Subscriber(
                    token: client.token, owner: client.owner, topics: client.topics, since: client.since)
            )
        }
        for (id, subscriber) in subscribers {
            let events = await records.events(for: changes, to: subscriber)
            guard run == pumpRun, !events.isEmpty, var client = clients[id] else { continue }
            for event in events {
                client.stream.send(Self.event(id: id, name: event.topic, data: event.data))
            }
            client.lastMessage = .now
            clients[id] = client
        }
        // Like PocketBase, a client whose user was deleted is a guest from then on.
        for change in changes where change.action == .delete {
            for (id, client) in clients where client.owner == change.user.id {
                clients[id]?.authID = nil
                clients[id]?.token = nil
                clients[id]?.owner = nil
            }
        }
    }

    /// Who calls, as PocketBase compares callers between subscription requests.
    private static func authID(_ caller: PocketBaseCaller) -> String? {
        switch caller {
        case .guest: nil
        case .user(let signedIn, _): "users:" + signedIn.user.id.rawValue
        case .superuser(let staff): "_superusers:" + staff.superuser.id
        }
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
