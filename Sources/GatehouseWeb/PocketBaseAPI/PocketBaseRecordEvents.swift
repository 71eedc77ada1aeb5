import AuthCore
import ServerSeam

/// Account changes as PocketBase's realtime record events: each change made after a subscriber's
/// subscriptions were set reaches each of its topics about that record (`PocketBaseTopic.record`)
/// as `{"record":…,"action":…}` — the record as the records API shows it to that viewer, cut to the
/// topic's `fields` option — when the subscriber may view the record (`PocketBaseCaller.mayView`,
/// its token checked again, so a revoked or expired one stops its events) and the record matches
/// the topic's `filter` option.
struct PocketBaseRecordEvents: Sendable {
    let feed: any UserChangeFeed
    let tokens: PocketBaseTokens

    /// A realtime client's record subscriptions, as set by its last `POST /api/realtime`.
    struct Subscriber: Sendable {
        /// The PocketBase token it subscribed with, if any.
        var token: String?
        /// The user it subscribed as: they still get their own record's delete, which ends the
        /// sessions the token stood for (PocketBase sends it to the owner).
        var owner: UserID?
        /// Every topic, in the order the client listed them.
        let topics: [PocketBaseTopic]
        /// Changes up to here were made before the subscriptions were set.
        let since: UserChangePosition
        /// The places in `topics` of each record's topics (`*` for the whole collection), so a
        /// change costs a lookup however many topics name other records.
        private let places: [String: [Int]]

        init(token: String?, owner: UserID?, topics: [PocketBaseTopic], since: UserChangePosition) {
            self.token = token
            self.owner = owner
            self.topics = topics
            self.since = since
            var places: [String: [Int]] = [:]
            for (place, topic) in topics.enumerated() {
                if let record = topic.record { places[record, default: []].append(place) }
            }
            self.places = places
        }

        /// Whether some topic gets `users` record events.
        var followsUsers: Bool { !places.isEmpty }

        /// The topics a change to record `id` reaches, in the client's order.
        func topics(of id: UserID) -> [PocketBaseTopic] {
            ((places[id.rawValue] ?? []) + (places["*"] ?? [])).sorted().map { topics[$0] }
        }
    }

    /// One filter check: the change and the query it is evaluated with (the filter, scoped to the viewer).
    private struct Check: Hashable {
        let position: UserChangePosition
        let query: UserQuery
    }

    /// One event's data: the change, cut to a `fields` option.
    private struct Cut: Hashable {
        let position: UserChangePosition
        let fields: Set<String>?
    }

    /// The events each of `subscribers` gets for `changes`, in order: the topic (the event's name)
    /// and data. The work is shared by all of them: each token is looked up once, and only when a
    /// change is about one of its topics; each filter is evaluated once per change and viewer, and
    /// each record written once per change and `fields` option.
    func events(for changes: [UserChange], to subscribers: [Subscriber]) async -> [[(topic: String, data: String)]] {
        var callers: [String: PocketBaseCaller] = [:]
        var checks: [Check: Bool] = [:]
        var cuts: [Cut: String] = [:]
        var all: [[(topic: String, data: String)]] = []
        for subscriber in subscribers {
            var events: [(topic: String, data: String)] = []
            for change in changes where change.position > subscriber.since {
                let topics = subscriber.topics(of: change.user.id)
                guard !topics.isEmpty else { continue }
                let key = subscriber.token ?? ""
                let caller: PocketBaseCaller
                if let known = callers[key] {
                    caller = known
                } else {
                    caller = await tokens.caller(token: subscriber.token)
                    callers[key] = caller
                }
                for topic in topics {
                    switch Self.rule(change, topic, caller: caller, owner: subscriber.owner) {
                    case .hidden: continue
                    case .shown: break
                    case .filtered(let query):
                        let check = Check(position: change.position, query: query)
                        if checks[check] == nil {
                            // A filter Gatehouse cannot read matches nothing, as PocketBase drops the event.
                            checks[check] = (try? await feed.passes(change, query)) ?? false
                        }
                        guard checks[check] == true else { continue }
                    }
                    let cut = Cut(position: change.position, fields: topic.fields)
                    let data = cuts[cut] ?? Self.data(change, fields: topic.fields)
                    cuts[cut] = data
                    events.append((topic.name, data))
                }
            }
            all.append(events)
        }
        return all
    }

    /// What a topic's subscriber may get of a change: nothing, the record, or the record if it
    /// passes the topic's `filter` (scoped to the viewer).
    private enum Rule {
        case hidden, shown
        case filtered(UserQuery)
    }

    /// The record rule, then the `filter` option on the record as the change left it (PocketBase
    /// checks both when the change is made).
    private static func rule(_ change: UserChange, _ topic: PocketBaseTopic, caller: PocketBaseCaller, owner: UserID?)
        -> Rule
    {
        let id = change.user.id
        // The owner's sessions ended with their record's delete: it is checked as the owner they were.
        let asOwner = !caller.mayView(id) && change.action == .delete && owner == id
        guard caller.mayView(id) || asOwner else { return .hidden }
        guard let filter = topic.filter else { return .shown }
        var query = UserQuery(ids: [id])
        query.filter = filter
        return .filtered(asOwner ? PocketBaseCaller.scoped(query, toUser: id) : caller.scoped(query))
    }

    /// `{"record":…,"action":…}`, in PocketBase's key order. Only a viewer who may see the record
    /// gets it, and that is its owner or a superuser: the email is shown, as the records API does.
    static func data(_ change: UserChange, fields: Set<String>?) -> String {
        var data = Array(#"{"record":"#.utf8)
        let record = PocketBaseRecord.picking(PocketBaseRecord.user(change.user, showEmail: true), fields: fields)
        JSONValue.object(record).write(to: &data)
        data += Array(#","action":""#.utf8) + Array(change.action.rawValue.utf8) + Array(#""}"#.utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
