import Accounts
import AuthCore
import Foundation
import HTTPServer

/// One-call sign-in (README "Test controls"): `POST /_/api/test/sign-in {email, way, projectId?,
/// clientType?}` signs the person in as if they had (`TestSignIn`: no credential, no second step)
/// and answers what that way in hands out (`TestSignInAnswers`).
struct TestSignInRoutes: Sendable {
    let api: TestControlsAPI
    let answers: TestSignInAnswers

    struct Body: Decodable {
        var email: String
        var way: String
        /// The Descope project the JWTs are signed for; the server's first when absent.
        var projectId: String?
        /// InsForge's `client_type` (`web` answers with the refresh cookie); `mobile` when absent.
        var clientType: String?
    }

    func register(on router: inout Router) {
        api.on(&router, .post, "/sign-in") { request, _, caller in
            let body: Body = try request.decodeJSON()
            let way: TestSignIn.Way
            do {
                way = try TestSignInAnswers.way(body.way)
            } catch AuthError.validation(let fields) {
                throw APIFailure.invalid("way: " + (fields.first?.message ?? ""))
            }
            return try await answers.signIn(
                .init(email: body.email, way: way, projectID: body.projectId, clientType: body.clientType), caller: caller,
                request: request)
        }
    }
}
