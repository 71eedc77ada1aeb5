import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The signed-in account's Rownd routes (`plugin/rownd/user`, `user/field`, `user/meta`): its
/// `data` is the Gatehouse profile, changed through `ProfileUpdate` as the account page changes it;
/// a new address goes through `EmailChangeRequest` (a confirmation mailed to it) and shows as
/// `email_verification_pending`; `meta` is the app's, kept apart (`AppUserMeta`); `DELETE` is the
/// owner's own account deletion.
struct RowndUserRoutes: Sendable {
    let fdi: SuperTokensFDI
    var env: PageEnvironment { fdi.env }
    private var base: String { RowndPluginRoutes.base }

    func register(on router: inout Router) {
        fdi.on(&router, .get, base + "/user") { request in
            let session = try await fdi.sessions.verified(request)
            return try await answer(session.signedIn)
        }
        fdi.on(&router, .put, base + "/user") { request in
            let session = try await fdi.sessions.verified(request)
            guard case .object(let patch) = try SuperTokensFDI.body(request)["data"] ?? .object([:]) else {
                return RowndPluginRoutes.refused(400, "data must be an object")
            }
            return try await update(patch, session.signedIn, request)
        }
        fdi.on(&router, .delete, base + "/user") { request in
            let session = try await fdi.sessions.verified(request)
            try await UserAdministration.deleteOwnAccount(
                session.signedIn, env: env.accounts, request: request, via: SuperTokensFDI.via)
            return SuperTokensFDI.status("OK")
        }
        fdi.on(&router, .get, base + "/user/field") { request in
            let session = try await fdi.sessions.verified(request)
            guard let field = try request.query.single("field"), !field.isEmpty else {
                return RowndPluginRoutes.refused(400, "field is required")
            }
            let user = RowndUser(session.signedIn, meta: [:], guest: try await fdi.isGuest(session.user))
            return SuperTokensFDI.status("OK", ["value": user.data[field] ?? .null])
        }
        fdi.on(&router, .put, base + "/user/field") { request in
            let session = try await fdi.sessions.verified(request)
            guard let field = try request.query.single("field"), !field.isEmpty else {
                return RowndPluginRoutes.refused(400, "field is required")
            }
            return try await update([field: try SuperTokensFDI.body(request)["value"] ?? .null], session.signedIn, request)
        }
        fdi.on(&router, .get, base + "/user/meta") { request in
            let session = try await fdi.sessions.verified(request)
            return metaAnswer(session.signedIn, try await meta.meta(of: session.signedIn))
        }
        fdi.on(&router, .put, base + "/user/meta") { request in
            let session = try await fdi.sessions.verified(request)
            guard case .object(let patch) = try SuperTokensFDI.body(request)["meta"] ?? .object([:]) else {
                return RowndPluginRoutes.refused(400, "meta must be an object")
            }
            do {
                return metaAnswer(session.signedIn, try await meta.merge(patch, of: session.signedIn, request: request))
            } catch AuthError.validation(let problems) {
                return RowndPluginRoutes.refused(400, problems.map(\.message).joined(separator: " "))
            }
        }
    }

    private var meta: AppUserMeta { AppUserMeta(env: env.accounts, via: SuperTokensFDI.via) }

    private func answer(_ signedIn: SignedIn, extra: [String: JSONValue] = [:]) async throws -> Response {
        let user = RowndUser(signedIn, meta: try await meta.meta(of: signedIn), guest: try await fdi.isGuest(signedIn.user))
        return .json(raw: JSONValue.object(user.json.merging(extra) { _, added in added }).serialized)
    }

    private func metaAnswer(_ signedIn: SignedIn, _ meta: [String: JSONValue]) -> Response {
        SuperTokensFDI.status("OK", ["id": .string(signedIn.user.id.rawValue), "meta": .object(meta)])
    }

    /// Writes `patch` (the profile's fields; `email` asks for the move to a new address); the
    /// account after, as `GET user` shows it.
    private func update(_ patch: [String: JSONValue], _ signedIn: SignedIn, _ request: Request) async throws -> Response {
        var signedIn = signedIn
        if let field = patch.keys.sorted().first(where: RowndUser.identityFields.contains) {
            return RowndPluginRoutes.refused(403, "field is not writable: \(field)")
        }
        var profile = patch
        var pending: Bool?
        if let email = profile.removeValue(forKey: "email") {
            guard case .string(let given) = email, case let address = given.trimmingCharacters(in: .whitespaces),
                !address.isEmpty
            else { return RowndPluginRoutes.refused(400, "email must be a non-empty string") }
            let moving = address.lowercased() != signedIn.user.email.lowercased()
            if moving, let refusal = try await moveAddress(to: address, signedIn, request) { return refusal }
            pending = moving
        }
        do {
            if !profile.isEmpty {
                signedIn.user = try await ProfileUpdate(env: env.accounts, via: SuperTokensFDI.via).apply(
                    profile, of: signedIn, request: request)
            }
        } catch AuthError.validation(let problems) {
            return RowndPluginRoutes.refused(400, problems.map(\.message).joined(separator: " "))
        }
        return try await answer(signedIn, extra: pending.map { ["email_verification_pending": .bool($0)] } ?? [:])
    }

    /// Asks for the move to `address` (confirmed by the link mailed there); the refusal, if any.
    private func moveAddress(to address: String, _ signedIn: SignedIn, _ request: Request) async throws -> Response? {
        do {
            switch try await EmailChangeRequest(env: env.accounts, via: SuperTokensFDI.via).request(
                newEmail: address, password: nil, by: signedIn, request: request)
            {
            case .requested: return nil
            case .throttled(let retryAfter): throw FDIRefusal.rateLimited(retryAfter)
            case .passwordRefused: return RowndPluginRoutes.refused(403, "recent authentication is required to change email")
            }
        } catch AuthError.validation(let problems) {
            return RowndPluginRoutes.refused(400, problems.map(\.message).joined(separator: " "))
        }
    }
}
