import AuthCore
import Foundation
import HTTPServer

/// `/api/realtime` and `/api/oauth2-redirect`. Record subscriptions (`users/*`, `users/ID`, with
/// `?options=`) get `users` record events from the backend's feed of account changes
/// (`PocketBaseRealtime`, `PocketBaseRecordEvents`). The SDKs' all-in-one OAuth2 flow
/// (`authWithOAuth2({provider})`): the app opens the realtime stream, subscribes its client id to
/// `@oauth2`, and sends the person to the provider with that id as `state`; the provider returns to
/// `/api/oauth2-redirect`, which hands `{state, code}` to that client and shows a close-this-window
/// page; the app then posts the code to `auth-with-oauth2`.
struct PocketBaseRealtimeRoutes: Sendable {
    let api: PocketBaseAPI
    var realtime: PocketBaseRealtime { api.realtime }

    func register(on router: inout Router) {
        api.on(&router, .get, "/api/realtime") { request, _ in
            guard let stream = await realtime.connect(from: request.remoteAddress) else {
                throw PocketBaseAnswer(503, "Too many realtime connections; try again later.")
            }
            return .stream(
                stream,
                headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no"])
        }
        api.on(&router, .post, "/api/realtime", setSubscriptions)
        api.on(&router, .get, "/api/oauth2-redirect") { request, _ in
            try await redirect(
                state: request.query["state"], code: request.query["code"], error: request.query["error"])
        }
        api.on(&router, .post, "/api/oauth2-redirect") { request, _ in
            // Providers with `response_mode=form_post` post a form; PocketBase reads JSON too.
            if request.mediaType == "application/json" {
                let body = try api.body(request)
                return try await redirect(
                    state: PocketBaseAPI.text(body, "state"), code: PocketBaseAPI.text(body, "code"),
                    error: PocketBaseAPI.text(body, "error"))
            }
            guard let form = try? request.form() else { return Self.failurePage }
            return try await redirect(state: form["state"], code: form["code"], error: form["error"])
        }
    }

    /// `POST /api/realtime {clientId, subscriptions}`: PocketBase's checks and answers, in its order.
    private func setSubscriptions(_ request: Request, _ parameters: PathParameters) async throws -> Response {
        let body = try api.body(request)
        let clientID: String
        switch body["clientId"] {
        case .string(let text): clientID = text
        case nil, .null?: clientID = ""
        default: throw PocketBaseAnswer(400, PocketBaseError.standardMessage(for: 400))
        }
        var topics: [String] = []
        switch body["subscriptions"] {
        case nil, .null?: break
        case .array(let items):
            for item in items {
                guard case .string(let topic) = item else {
                    throw PocketBaseAnswer(400, PocketBaseError.standardMessage(for: 400))
                }
                topics.append(topic)
            }
        default: throw PocketBaseAnswer(400, PocketBaseError.standardMessage(for: 400))
        }
        if let problems = Self.problems(clientID: clientID, topics: topics) {
            return try PocketBaseAPI.json(
                [
                    "data": .object(problems), "message": .string(PocketBaseError.standardMessage(for: 400)),
                    "status": .number(400)
                ], status: 400)
        }
        let caller = await api.tokens.caller(request)
        switch await realtime.subscribe(
            clientID: clientID, to: topics, caller: caller, token: request.bareOrBearerToken)
        {
        case .done: return .empty()
        case .unknownClient: throw PocketBaseAnswer(404, "Missing or invalid client id.")
        case .otherCaller: throw PocketBaseAnswer(403, "The current and the previous request authorization don't match.")
        case .tooManyClients: throw PocketBaseAnswer(429, "Too many realtime connections for this auth.")
        case .overBudget(let code, let message):
            throw PocketBaseAnswer(
                400, PocketBaseError.standardMessage(for: 400),
                data: ["subscriptions": PocketBaseError.FieldProblem(code: code, message: message)])
        }
    }

    /// PocketBase's validation of the subscribe form: a client id of 1–255 characters, at most 1,000
    /// topics of at most 2,500 characters each (problems per topic are keyed by their index).
    static func problems(clientID: String, topics: [String]) -> [String: JSONValue]? {
        func problem(_ code: String, _ message: String) -> JSONValue {
            .object(["code": .string(code), "message": .string(message)])
        }
        var problems: [String: JSONValue] = [:]
        if clientID.isEmpty {
            problems["clientId"] = problem("validation_required", "Cannot be blank.")
        } else if clientID.count > 255 {
            problems["clientId"] = problem("validation_length_out_of_range", "The length must be between 1 and 255.")
        }
        if topics.count > 1000 {
            problems["subscriptions"] = problem("validation_length_too_long", "The length must be no more than 1000.")
        } else {
            var byIndex: [String: JSONValue] = [:]
            for (index, topic) in topics.enumerated() where topic.count > 2500 {
                byIndex[String(index)] = problem("validation_length_too_long", "The length must be no more than 2500.")
            }
            if !byIndex.isEmpty { problems["subscriptions"] = .object(byIndex) }
        }
        return problems.isEmpty ? nil : problems
    }

    /// Hands the provider's answer to the client named by `state`, then shows PocketBase's page.
    private func redirect(state: String?, code: String?, error: String?) async throws -> Response {
        guard let state, !state.isEmpty else { return Self.failurePage }
        let message = OAuth2Message(state: state, code: code ?? "", error: (error ?? "").isEmpty ? nil : error)
        let data = String(decoding: try JSONEncoder().encode(message), as: UTF8.self)
        guard await realtime.deliverOAuth2(toClient: state, data: data) else { return Self.failurePage }
        return message.error == nil && !message.code.isEmpty ? Self.successPage : Self.failurePage
    }

    /// The `@oauth2` message's data, with PocketBase's keys (`error` only when there is one).
    private struct OAuth2Message: Encodable {
        var state: String
        var code: String
        var error: String?
    }

    /// PocketBase's own pages for a build without its admin UI (with the UI it redirects to the UI's
    /// pages, which Gatehouse does not have): the person closes the window and returns to the app.
    static let successPage = Response.html("Auth completed. You can close this window and go back to the app.")
    static let failurePage = Response.text(
        "Failed to authenticate. You can close this window and go back to the app to try again.")
}
