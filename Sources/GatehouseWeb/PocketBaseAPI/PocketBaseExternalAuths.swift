import Accounts
import AuthCore
import Foundation
import HTTPServer

/// `_externalAuths` records: the provider identities linked to an account, listed, viewed and
/// deleted by their owner (PocketBase's rules; nobody creates or updates them here). The record
/// routes hand this collection's requests over.
struct PocketBaseExternalAuths: Sendable {
    let api: PocketBaseAPI
    var env: PageEnvironment { api.env }
    private var links: ProviderLinks { ProviderLinks(env: env.accounts, via: "pocketbase-api") }

    func list(_ request: Request) async throws -> Response {
        let conditions = try ExternalAuthFilter(try request.query.single("filter"))
        let links = try await visibleLinks(await api.tokens.caller(request), owner: conditions.recordRef)
            .filter(conditions.matches)
        let perPage = min(max(Int(try request.query.single("perPage") ?? "") ?? 30, 1), PocketBaseRecordRoutes.maximumPerPage)
        let page = max(Int(try request.query.single("page") ?? "") ?? 1, 1)
        let shown = links.dropFirst((page - 1) * perPage).prefix(perPage)
        let skipParameter = try request.query.single("skipTotal") ?? ""
        let skipTotal = ["true", "1"].contains(skipParameter)
        let total = skipTotal ? -1 : links.count
        return try .json(
            ListBody(
                items: shown.map { .object(PocketBaseRecord.externalAuth($0)) }, page: page, perPage: perPage,
                totalItems: total, totalPages: skipTotal ? -1 : (links.count + perPage - 1) / perPage))
    }

    func view(_ request: Request, id: String) async throws -> Response {
        guard let link = try await visibleLink(id, caller: await api.tokens.caller(request)) else {
            throw PocketBaseAnswer(404, PocketBaseError.standardMessage(for: 404))
        }
        return try PocketBaseAPI.json(PocketBaseRecord.externalAuth(link))
    }

    func delete(_ request: Request, id: String) async throws -> Response {
        let caller = await api.tokens.caller(request)
        guard let link = try await visibleLink(id, caller: caller) else {
            throw PocketBaseAnswer(404, PocketBaseError.standardMessage(for: 404))
        }
        switch caller {
        case .user(let signedIn, _):
            do {
                try await links.unlink(link.provider, of: signedIn, request: request)
            } catch let error as ExternalAuthError {
                throw PocketBaseAnswer(400, "Failed to delete record. \(error)")
            }
        case .superuser(let staff):
            try await links.remove(link, by: staff, request: request)
        case .guest:
            throw PocketBaseAnswer(404, PocketBaseError.standardMessage(for: 404))
        }
        return Response(status: 204)
    }

    /// Links a superuser makes for an account (seeding and support), as PocketBase allows them.
    func create(_ request: Request) async throws -> Response {
        guard case .superuser = await api.tokens.caller(request) else {
            throw PocketBaseAnswer(403, "Only superusers can perform this action.")
        }
        let body = try api.body(request)
        let missing = PocketBaseAPI.required(body, ["recordRef", "provider", "providerId"])
        guard missing.isEmpty else { throw PocketBaseAnswer(400, "Failed to create record.", data: missing) }
        let link = try await links.add(
            userID: UserID(PocketBaseAPI.text(body, "recordRef") ?? ""), provider: PocketBaseAPI.text(body, "provider") ?? "",
            providerID: PocketBaseAPI.text(body, "providerId") ?? "")
        return try PocketBaseAPI.json(PocketBaseRecord.externalAuth(link))
    }

    /// A user's own links; a superuser's, the links of the account a `recordRef` filter names
    /// (Gatehouse does not list every link of every account at once: the filter is required).
    private func visibleLinks(_ caller: PocketBaseCaller, owner: String?) async throws -> [ExternalAuth] {
        switch caller {
        case .user(let signedIn, _):
            return try await links.own(signedIn)
        case .superuser:
            guard let owner else {
                throw PocketBaseAnswer(400, "Gatehouse lists _externalAuths for superusers by account: filter by recordRef.")
            }
            return try await links.links(of: UserID(owner))
        case .guest:
            return []
        }
    }

    private func visibleLink(_ id: String, caller: PocketBaseCaller) async throws -> ExternalAuth? {
        switch caller {
        case .user(let signedIn, _):
            return try await visibleLinks(caller, owner: nil).first { $0.id == id && $0.userID == signedIn.user.id }
        case .superuser:
            return try await links.link(id: id)
        case .guest:
            return nil
        }
    }
}

/// The filters PocketBase's SDKs send for `_externalAuths` (`recordRef = 'ID' && provider = 'P'`):
/// equality on a record field, joined by `&&`. Anything else is a 400 naming the part.
struct ExternalAuthFilter {
    private var conditions: [(field: String, value: String)] = []

    init(_ filter: String?) throws {
        guard let filter, !filter.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        for term in filter.components(separatedBy: "&&") {
            let parts = term.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, ["id", "recordRef", "provider", "providerId", "collectionRef"].contains(parts[0]),
                let value = Self.literal(parts[1])
            else {
                throw PocketBaseAnswer(
                    400,
                    "Gatehouse filters _externalAuths by field = 'value' joined with &&; it cannot read \"\(term.trimmingCharacters(in: .whitespaces))\"."
                )
            }
            conditions.append((parts[0], value))
        }
    }

    /// The account the filter names, if it names one.
    var recordRef: String? { conditions.first { $0.field == "recordRef" }?.value }

    func matches(_ link: ExternalAuth) -> Bool {
        conditions.allSatisfy { condition in
            switch condition.field {
            case "id": link.id == condition.value
            case "recordRef": link.userID.rawValue == condition.value
            case "provider": link.provider == condition.value
            case "providerId": link.providerID == condition.value
            default: condition.value == PocketBaseCollection.users.id
            }
        }
    }

    /// A single- or double-quoted string without escapes.
    private static func literal(_ text: String) -> String? {
        guard text.count >= 2, let quote = text.first, quote == "'" || quote == "\"", text.last == quote else { return nil }
        let inner = text.dropFirst().dropLast()
        return inner.contains(quote) || inner.contains("\\") ? nil : String(inner)
    }
}
