import AuthCore
import HTTPServer

extension Request {
    /// The body read by `JSONValue`'s own reader, for the API calls an SDK makes most (`JSONDecoder`
    /// cost a tenth of a SuperTokens `session/verify`); nil when it is not UTF-8 or not JSON, so a
    /// malformed byte is refused rather than read as U+FFFD into an address or a password.
    var jsonValue: JSONValue? {
        String(validating: body, as: UTF8.self).flatMap { JSONValue(parsing: $0) }
    }
}
