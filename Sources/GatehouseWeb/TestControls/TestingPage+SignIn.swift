import Accounts
import AuthCore
import Foundation
import HTTPServer

/// The Testing page's one-call sign-in: staff sign a person in as a way in would, and read what
/// that way hands out (the pages' cookie, an API's tokens) to paste into a browser or a client —
/// the API's own answer (`TestSignInAnswers`), shown here and never set on the staff's browser.
extension TestingPage {
    func registerSignIn(on router: inout Router) {
        router.consolePage(.post, Self.path + "/sign-in", env) { visit, staff in
            try await guarded(visit) {
                try await refusingFields(visit, staff, section: "signIn") {
                    let way = try TestSignInAnswers.way(visit.field("way"))
                    let email = try visit.field("email")
                    let answer = try await signInAnswer(email: email, way: way, staff: staff, request: visit.request)
                    return [
                        "result": "Signed \(email) in by \(way.rawValue): below is what that way hands out.",
                        "signedIn": ["way": way.rawValue, "answer": answer]
                    ]
                }
            }
        }
    }

    /// The way's answer as text: the cookies it sets, then its JSON laid out to read.
    private func signInAnswer(email: String, way: TestSignIn.Way, staff: Staff, request: Request) async throws -> String {
        let response: Response
        do {
            response = try await signIns.signIn(.init(email: email, way: way), caller: .staff(staff), request: request)
        } catch AuthError.userNotFound {
            throw AuthError.validation([FieldError(field: "email", message: "No account has this address.")])
        } catch AuthError.invalidCredentials {
            throw AuthError.validation([FieldError(field: "email", message: "This account is disabled.")])
        }
        let cookies = response.headers.values(for: "Set-Cookie").map { "Set-Cookie: \($0)\n" }.joined()
        guard let json = try? JSONSerialization.jsonObject(with: Data(response.body)),
            let laidOut = try? JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
        else { return cookies + String(decoding: response.body, as: UTF8.self) }
        return cookies + String(decoding: laidOut, as: UTF8.self)
    }
}
