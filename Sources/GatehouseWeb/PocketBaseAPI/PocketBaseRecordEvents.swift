import AuthCore

/// Account changes as PocketBase's realtime record events, for one subscriber at a time: each
/// change made after the subscriptions were set reaches each of its topics about that record
/// (`PocketBaseTopic.recordTopics`) as `{"record":…,"action":…}` — the record as the records API
/// shows it to that viewer, cut to the topic's `fields` option — when the subscriber may view
/// the record (`PocketBaseCaller.mayView`, its token checked again, so a revoked or expired one
/// stops its events) and the record matches the topic's `filter` option.
struct PocketBaseRecordEvents: Sendable {
    let feed: any UserChangeFeed
    let tokens: PocketBaseTokens

    /// A realtime client's record subscriptions, as set by its last `POST /api/realtime`.
    struct Subscriber: Sendable {
        /// The PocketBase token it subscribed with, if any.
        let token: String?
        /// The user it subscribed as: they still get their own record's delete, which ends the
        /// sessions the token stood for (PocketBase sends it to the owner).
        let owner: UserID?
        let topics: [PocketBaseTopic]
        /// Changes up to here were made before the subscriptions were set.
        let since: UserChangePosition
    }

    /// The events `subscriber` gets for `changes`, in order: the topic (the event's name) and data.
    func events(for changes: [UserChange], to subscriber: Subscriber) async -> [(topic: String, data: String)] {
        // The token is looked up once, and only when a change is about one of the topics.
        var caller: PocketBaseCaller?
        var events: [(topic: String, data: String)] = []
        for change in changes where change.position > subscriber.since {
            let topics = PocketBaseTopic.recordTopics(of: change.user.id)
            for topic in subscriber.topics where topics.contains(where: topic.isTo) {
                if caller == nil { caller = await tokens.caller(token: subscriber.token) }
                guard let caller else { continue }
                if await delivers(change, to: topic, caller: caller, owner: subscriber.owner) {
                    events.append((topic.name, Self.data(change, fields: topic.fields)))
                }
            }
        }
        return events
    }

    /// The record rule, then the `filter` option on the record as the change left it (PocketBase
    /// checks both when the change is made).
    private func delivers(_ change: UserChange, to topic: PocketBaseTopic, caller: PocketBaseCaller, owner: UserID?) async
        -> Bool
    {
        let id = change.user.id
        // The owner's sessions ended with their record's delete: it is checked as the owner they were.
        let asOwner = !caller.mayView(id) && change.action == .delete && owner == id
        guard caller.mayView(id) || asOwner else { return false }
        guard let filter = topic.query["filter"], !filter.isEmpty else { return true }
        var query = UserQuery(ids: [id])
        query.filter = filter
        query = asOwner ? PocketBaseCaller.scoped(query, toUser: id) : caller.scoped(query)
        // A filter Gatehouse cannot read matches nothing, as PocketBase drops the event.
        return (try? await feed.passes(change, query)) ?? false
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
