import AuthCore
import HTTPServer

/// A realtime subscription as PocketBase reads it: the topic exactly as the client sent it (it is
/// also the name of the events it gets) and the `filter` and `fields` of the query in its
/// `?options={"query":…,"headers":…}` suffix, which the SDKs add for
/// `subscribe(topic, cb, {fields, filter, …})`. Options that do not
/// parse are no options, as PocketBase ignores them. The `headers` option only feeds
/// `@request.headers` in PocketBase's rules, which Gatehouse's fixed rules do not read.
struct PocketBaseTopic: Sendable, Hashable {
    let name: String
    /// The `users` record whose events this topic gets: its id, `*` for every record (`users/*`,
    /// and the bare collection, PocketBase's deprecated spelling of it), by the collection's name or
    /// id; nil for any other topic. Read once, so a change finds its topics by key.
    let record: String?
    /// The `filter` option; nil when absent or empty (no filter).
    let filter: String?
    /// The `fields` option as sent. Only the options Gatehouse reads are kept, not the whole query:
    /// a topic holding its query as a dictionary took ~550 bytes with a one-key query (measured).
    private let fieldsOption: String?

    init(_ name: String) {
        self.name = name
        record = Self.record(of: name)
        let query = Self.query(of: name)
        filter = query["filter"].flatMap { $0.isEmpty ? nil : $0 }
        fieldsOption = query["fields"]
    }

    /// The `fields` option as `PocketBaseRecord.picking` takes it; nil when absent.
    var fields: Set<String>? {
        fieldsOption.map(PocketBaseRecord.fieldNames)
    }

    /// The topic proper (before any `?`) read as a `users` record topic.
    private static func record(of name: String) -> String? {
        let topic = name.prefix { $0 != "?" }
        let collection = PocketBaseCollection.users
        for prefix in [collection.rawValue, collection.id] where topic.hasPrefix(prefix) {
            let rest = topic.dropFirst(prefix.count)
            if rest.isEmpty { return "*" }
            if rest.first == "/", rest.count > 1 { return String(rest.dropFirst()) }
        }
        return nil
    }

    /// The query of the topic's `options`, values as text (numbers and flags too, as PocketBase
    /// casts them); empty when there is none or it does not parse.
    static func query(of name: String) -> [String: String] {
        guard let mark = name.firstIndex(of: "?"),
            let parameters = try? Parameters(urlEncoded: name[name.index(after: mark)...]),
            let text = parameters.values("options").first,
            case .object(let options)? = JSONValue(parsing: text),
            case .object(let query)? = options["query"]
        else { return [:] }
        return query.mapValues(\.displayText)
    }
}
