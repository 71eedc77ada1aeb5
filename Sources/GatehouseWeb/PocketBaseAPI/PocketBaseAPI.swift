import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The PocketBase/BosBase-compatible API (`/api/collections/…`): apps on PocketBase's SDKs point at
/// Gatehouse unchanged. A thin adapter: every account operation is a seam call (`env.backend`),
/// Gatehouse's own rules (audit, throttles, sessions) are the same ones the pages use, and every
/// answer has PocketBase's shape (`PocketBaseRecord`, `PocketBaseError`).
struct PocketBaseAPI: Sendable {
    let env: PageEnvironment
    let tokens: PocketBaseTokens
    /// Provider sign-in, when Gatehouse has providers at all.
    let oauth: OAuthFeature?
    /// The realtime clients: the all-in-one OAuth2 flow's `@oauth2` message, and record events
    /// when the backend has a feed of account changes.
    let realtime: PocketBaseRealtime

    init(env: PageEnvironment, tokens: PocketBaseTokens, oauth: OAuthFeature? = nil) {
        self.env = env
        self.tokens = tokens
        self.oauth = oauth
        let feed = UserDirectory(env: env.accounts).changes()
        realtime = PocketBaseRealtime(records: feed.map { PocketBaseRecordEvents(feed: $0, tokens: tokens) })
    }

    func register(on router: inout Router) {
        PocketBaseAuthRoutes(api: self).register(on: &router)
        PocketBaseRecordRoutes(api: self).register(on: &router)
        PocketBaseRealtimeRoutes(api: self).register(on: &router)
    }

    /// A route whose seam errors answer in PocketBase's words.
    func on(
        _ router: inout Router, _ method: HTTPMethod, _ path: String, failure: String? = nil,
        _ handler: @escaping @Sendable (Request, PathParameters) async throws -> Response
    ) {
        router.on(method, path) { request, parameters in
            do {
                return try await handler(request, parameters)
            } catch let error as AuthError {
                if let failure { return PocketBaseError.response(for: error, failure: failure) }
                return PocketBaseError.response(for: error)
            } catch let answer as PocketBaseAnswer {
                return answer.response
            } catch is AccountDisabled {
                return PocketBaseError.response(status: 403, message: "The account is disabled.")
            }
        }
    }

    /// Nothing for a mail request that was sent or held by its address's budget (PocketBase answers
    /// those alike); `.rateLimited` for one held by its source's budget.
    static func answer(_ outcome: MailRequests.Outcome) throws {
        if case .held(let refusal) = outcome, refusal.budget.countsSource {
            throw AuthError.rateLimited(retryAfter: refusal.retryAfter)
        }
    }

    /// The collection named in the path, when this route serves it; else PocketBase's 404.
    func collection(_ parameters: PathParameters, allowed: Set<PocketBaseCollection>) throws -> PocketBaseCollection {
        guard let name = parameters["collection"], let collection = PocketBaseCollection(idOrName: name),
            allowed.contains(collection)
        else { throw PocketBaseAnswer(404, "Missing collection context.") }
        return collection
    }

    /// The JSON body as an object (`{}` when empty). Unreadable JSON is PocketBase's generic 400.
    func body(_ request: Request) throws -> [String: JSONValue] {
        if request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return [:] }
        return try request.decodeJSON([String: JSONValue].self)
    }

    /// A text field of the body, or nil when absent or not text.
    static func text(_ body: [String: JSONValue], _ key: String) -> String? {
        if case .string(let value) = body[key] { return value }
        return nil
    }

    /// Field problems for required text fields that are missing or blank, in PocketBase's words.
    static func required(_ body: [String: JSONValue], _ keys: [String]) -> [String: PocketBaseError.FieldProblem] {
        var problems: [String: PocketBaseError.FieldProblem] = [:]
        for key in keys where (text(body, key) ?? "").isEmpty {
            problems[key] = PocketBaseError.FieldProblem(code: "validation_required", message: "Cannot be blank.")
        }
        return problems
    }

    /// `Response.json` of a JSON object.
    static func json(_ object: [String: JSONValue], status: Int = 200) throws -> Response {
        .json(raw: JSONValue.object(object).serialized, status: status)
    }
}

/// A finished PocketBase answer thrown from inside a helper (a 404 for an unknown collection, say);
/// the route wrapper (`PocketBaseAPI.on`) sends it as it is.
struct PocketBaseAnswer: Error {
    let response: Response

    init(_ status: Int, _ message: String, data: [String: PocketBaseError.FieldProblem] = [:]) {
        response = PocketBaseError.response(status: status, message: message, data: data)
    }
}
