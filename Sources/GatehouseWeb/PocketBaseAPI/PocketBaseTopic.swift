import AuthCore
import HTTPServer

/// A realtime subscription as PocketBase reads it: the topic exactly as the client sent it (it is
/// also the name of the events it gets) and the `query` of its `?options={"query":…,"headers":…}`
/// suffix, which the SDKs add for `subscribe(topic, cb, {fields, filter, …})`. Options that do not
/// parse are no options, as PocketBase ignores them. The `headers` option only feeds
/// `@request.headers` in PocketBase's rules, which Gatehouse's fixed rules do not read.
struct PocketBaseTopic: Sendable, Hashable {
    let name: String
    /// Query values as text (numbers and flags too, as PocketBase casts them).
    let query: [String: String]

    init(_ name: String) {
        self.name = name
        query = Self.options(of: name)
    }

    /// Whether this subscription is to `topic`: the same, or `topic` followed by `?` and options.
    func isTo(_ topic: String) -> Bool {
        name == topic || name.hasPrefix(topic + "?")
    }

    /// Whether this may be a topic of `users` record events (by the collection's name or id).
    var isAboutUsers: Bool {
        let collection = PocketBaseCollection.users
        return [collection.rawValue, collection.id].contains {
            name == $0 || name.hasPrefix($0 + "/") || name.hasPrefix($0 + "?")
        }
    }

    /// The `fields` option as `PocketBaseRecord.picking` takes it; nil when absent.
    var fields: Set<String>? {
        query["fields"].map(PocketBaseRecord.fieldNames)
    }

    /// The topics of a `users` record's events: the record (view rule) and the whole collection
    /// (list rule; the bare collection is PocketBase's deprecated spelling of `/*`), each by name
    /// and by id.
    static func recordTopics(of id: UserID) -> [String] {
        let collection = PocketBaseCollection.users
        return [collection.rawValue, collection.id].flatMap { [$0 + "/" + id.rawValue, $0 + "/*", $0] }
    }

    private static func options(of name: String) -> [String: String] {
        guard let mark = name.firstIndex(of: "?"),
            let parameters = try? Parameters(urlEncoded: name[name.index(after: mark)...]),
            let text = parameters.values("options").first,
            case .object(let options)? = JSONValue(parsing: text),
            case .object(let query)? = options["query"]
        else { return [:] }
        return query.mapValues(\.displayText)
    }
}
