import AuthCore
import Foundation
import HTTPServer
import Secrets
import ServerSeam

/// PocketBase's realtime clients (`/api/realtime`): the `@oauth2` message of the SDKs' all-in-one
/// OAuth2 flow, and `users` record events (`PocketBaseRecordEvents`) when the backend has a feed of
/// account changes. Each client is one server-sent-events stream with PocketBase's 40-character
/// id; it is forgotten when its stream ends (the app left, Gatehouse shut down, it went
/// `idleTimeout` without a message, as PocketBase closes it, or a newcomer needed its place). The
/// feed is read only while some client has a subscription about `users`. The one owner of the
/// realtime limits (`Limits`).
actor PocketBaseRealtime {
    static let oauth2Topic = "@oauth2"
    /// Realtime's own stream places (the server's 1,024 per pool): open mailbox feeds never take them.
    static let streamPool = "realtime"

    /// What realtime clients may hold; the README's security section gives the reasons. Measured
    /// here (the test process's resident memory, 128 clients at a time): a client holds 22–40 KiB
    /// (its connection and stream) before it subscribes, and each topic ~200 bytes beside its text.
    /// Within PocketBase's own limits (1,000 topics in a 1 MiB body) one client held 2.3 MiB.
    struct Limits: Sendable {
        /// Clients at once: below the server's 1,024 streams, so a stream ended to make room
        /// may still be closing when its successor is admitted. When full, a newcomer takes the
        /// place of the oldest guest client (never subscribed with an auth) of the address holding
        /// the most guest clients (`guestToReplace`); with no guest client left it is answered 503.
        var maxClients = 960
        /// Clients one signed-in caller (user or superuser) may subscribe with at once (429 past it).
        var maxClientsPerCaller = 16
        /// Topics of one client (400 past it). With `maxTopicBytes`, a client's subscriptions hold at
        /// most ~90 KiB (measured: 256 topics of 64 bytes, each with options), so 960 clients hold at
        /// most ~120 MiB with their streams, where PocketBase's limits allowed ~2 GiB. Gatehouse has
        /// only `users` records, which an app follows with a handful of topics.
        var maxTopics = 256
        /// The subscriptions of one client, in UTF-8 bytes of topic text (400 past it).
        var maxTopicBytes = 16 << 10
        /// Topics with a `filter` option on one client (400 past it).
        var maxFilteredTopics = 16
        /// Different filters across one signed-in caller's clients (400 past it): a change is checked
        /// only against the filters of callers who may view the record (its owner, superusers), each
        /// once per change and viewer; a check took 0.4–0.7 ms here (32 filters added 0.7–1.1 s to 50
        /// edits, debug build), so a change costs one caller at most ~20 ms of checks.
        var maxFiltersPerCaller = 32
    }

    private struct Client {
        let stream: ResponseStream
        /// The address it connected from, and when: the order newcomers take guests' places in.
        let address: String
        let opened: ContinuousClock.Instant
        /// Its topics, and the token and user of its last subscription request.
        var subscriber = PocketBaseRecordEvents.Subscriber(token: nil, owner: nil, topics: [], since: UserChangePosition(0))
        /// Who set the subscriptions (`collection:id`); later calls must come from the same caller.
        var authID: String?
        var lastMessage = ContinuousClock.now
        /// Ends the stream after `idleTimeout` without a message; cancelled when the client goes.
        var idleWatch: Task<Void, Never>?

        var followsUsers: Bool { subscriber.followsUsers }
    }

    private var clients: [String: Client] = [:]
    private let keepAlive: Duration
    private let idleTimeout: Duration
    private let limits: Limits
    /// Where record events come from; nil when the backend cannot tell account changes.
    private let records: PocketBaseRecordEvents?
    /// Reads the feed while a client follows `users`; `pumpRun` tells a cancelled run's late
    /// batch from the current run's.
    private var pump: Task<Void, Never>?
    private var pumpRun = 0

    /// `keepAlive` also bounds how long a client that left holds its place (the next write finds it
    /// gone). PocketBase closes a connection that got no message for `idleTimeout`; its SDKs reconnect.
    init(
        keepAlive: Duration = .seconds(15), idleTimeout: Duration = .seconds(300), limits: Limits = Limits(),
        records: PocketBaseRecordEvents? = nil
    ) {
        self.keepAlive = keepAlive
        self.idleTimeout = idleTimeout
        self.limits = limits
        self.records = records
    }

    /// A new client from `address`: its stream, already carrying `PB_CONNECT` with the id; nil when
    /// every place is taken by a signed-in client.
    func connect(from address: String) -> ResponseStream? {
        if clients.count >= limits.maxClients {
            // Clients that left go first (a parked stream notices only at its next write).
            for (id, client) in clients where client.stream.clientLeft { forget(id) }
        }
        if clients.count >= limits.maxClients {
            guard let guest = guestToReplace(for: address) else { return nil }
            forget(guest)
        }
        let id = Self.clientID()
        let stream = ResponseStream(pool: Self.streamPool, keepAlive: keepAlive)
        clients[id] = Client(stream: stream, address: address, opened: .now)
        stream.send(Self.event(id: id, name: "PB_CONNECT", data: #"{"clientId":"\#(id)"}"#))
        stream.onTermination { [weak self] in
            Task { await self?.forget(id) }
        }
        clients[id]?.idleWatch = Task { [weak self] in await self?.closeWhenIdle(id) }
        return stream
    }

    enum SubscribeOutcome {
        case done, unknownClient, otherCaller, tooManyClients
        /// Over one of the `Limits`: the problem's code and message, on `subscriptions`.
        case overBudget(code: String, message: String)
    }

    /// Replaces a client's subscriptions, as PocketBase's `POST /api/realtime` does; record events
    /// follow from changes made after this call.
    func subscribe(clientID: String, to topics: [String], caller: PocketBaseCaller, token: String?) async
        -> SubscribeOutcome
    {
        let since = try? await records?.feed.latest()
        guard var client = clients[clientID], client.stream.isOpen else { return .unknownClient }
        let authID = Self.authID(caller)
        if let previous = client.authID, previous != authID { return .otherCaller }
        // PocketBase skips empty topics and keeps one of each.
        var seen = Set<String>()
        let names = topics.filter { !$0.isEmpty && seen.insert($0).inserted }
        if names.count > limits.maxTopics {
            return .overBudget(
                code: "validation_length_too_long", message: "The length must be no more than \(limits.maxTopics).")
        }
        if names.reduce(0, { $0 + $1.utf8.count }) > limits.maxTopicBytes {
            return .overBudget(
                code: "validation_too_long",
                message: "The subscriptions must total no more than \(limits.maxTopicBytes) bytes.")
        }
        let kept = names.map(PocketBaseTopic.init)
        if let refusal = refusal(of: kept, from: clientID, as: authID) { return refusal }
        client.authID = authID
        let owner: UserID? = if case .user(let signedIn, _) = caller { signedIn.user.id } else { nil }
        client.subscriber = PocketBaseRecordEvents.Subscriber(
            token: token, owner: owner, topics: kept, since: since ?? client.subscriber.since)
        clients[clientID] = client
        if client.followsUsers { followUsers(from: client.subscriber.since) } else { stopFollowingUsersUnlessNeeded() }
        return .done
    }

    /// Why `topics` may not be `clientID`'s subscriptions as `authID` (filters, clients), if they may not.
    private func refusal(of topics: [PocketBaseTopic], from clientID: String, as authID: String?) -> SubscribeOutcome? {
        let filters = topics.compactMap(\.filter)
        if filters.count > limits.maxFilteredTopics {
            return .overBudget(
                code: "validation_too_many_filters",
                message: "At most \(limits.maxFilteredTopics) subscriptions may have a filter.")
        }
        guard let authID else { return nil }
        let others = clients.filter { $0.key != clientID && $0.value.authID == authID }
        if clients[clientID]?.authID == nil, others.count >= limits.maxClientsPerCaller { return .tooManyClients }
        let callerFilters = others.values.reduce(into: Set(filters)) { $0.formUnion($1.subscriber.topics.compactMap(\.filter)) }
        if callerFilters.count > limits.maxFiltersPerCaller {
            return .overBudget(
                code: "validation_too_many_filters",
                message: "At most \(limits.maxFiltersPerCaller) different filters across the realtime clients of one auth.")
        }
        return nil
    }

    /// The guest client a newcomer from `address` replaces: the oldest of the address holding the
    /// most guests, its own among equals, so a newcomer the server then refuses (its address at the
    /// streams limit) takes no other address's place.
    private func guestToReplace(for address: String) -> String? {
        let guests = clients.filter { $0.value.authID == nil }
        let perAddress = Dictionary(grouping: guests.values, by: \.address).mapValues(\.count)
        guard let most = perAddress.values.max() else { return nil }
        let busiest = perAddress[address] == most ? [address] : Set(perAddress.filter { $0.value == most }.keys)
        return guests.filter { busiest.contains($0.value.address) }.min { $0.value.opened < $1.value.opened }?.key
    }

    /// Sends the `@oauth2` message to the client named by the provider's `state`, once: the
    /// subscription is spent. False when no open client subscribed to it.
    func deliverOAuth2(toClient clientID: String, data: String) -> Bool {
        guard var client = clients[clientID], client.subscriber.topics.contains(where: { $0.name == Self.oauth2Topic })
        else { return false }
        let subscriber = client.subscriber
        client.subscriber = PocketBaseRecordEvents.Subscriber(
            token: subscriber.token, owner: subscriber.owner, topics: subscriber.topics.filter { $0.name != Self.oauth2Topic },
            since: subscriber.since)
        client.lastMessage = .now
        clients[clientID] = client
        return client.stream.send(Self.event(id: clientID, name: Self.oauth2Topic, data: data))
    }

    var count: Int { clients.count }

    /// Drops a client, ending its stream if it is still open.
    private func forget(_ id: String) {
        guard let client = clients.removeValue(forKey: id) else { return }
        client.idleWatch?.cancel()
        client.stream.finish()
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
        let following = clients.filter { $0.value.followsUsers }.map { ($0.key, $0.value.subscriber) }
        let events = await records.events(for: changes, to: following.map(\.1))
        for ((id, _), events) in zip(following, events) {
            guard run == pumpRun, !events.isEmpty, var client = clients[id] else { continue }
            for event in events {
                client.stream.send(Self.event(id: id, name: event.topic, data: event.data))
            }
            client.lastMessage = .now
            clients[id] = client
        }
        // Like PocketBase, a client whose user was deleted is a guest from then on.
        for change in changes where change.action == .delete {
            for (id, client) in clients where client.subscriber.owner == change.user.id {
                clients[id]?.authID = nil
                clients[id]?.subscriber.token = nil
                clients[id]?.subscriber.owner = nil
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
