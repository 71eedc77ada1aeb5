import Foundation
import HTTPServer

/// The Descope project ids this server answers for: `--descope-project-id` (several allowed), else
/// one made at first start from a key kept in the database. Every call names its project in
/// `Authorization: Bearer <projectId>[:<refreshJwt>]`; a JWT carries it as its `iss`, so a token
/// of one project never works for another.
public struct DescopeProject: Sendable, Equatable {
    public let ids: [String]

    public init(ids: [String]) { self.ids = ids }

    /// The id made from `seed` (a key kept in the database): `P` and 27 letters or digits, the
    /// look of Descope's own ids, short of the 32 characters at which the SDKs pick a regional host.
    public static func generated(from seed: [UInt8]) -> DescopeProject {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        let tail = seed.prefix(27).map { alphabet[Int($0) % alphabet.count] }
        return DescopeProject(ids: ["P" + String(tail)])
    }

    func knows(_ id: String) -> Bool { ids.contains(id) }

    /// The project a call names and the refresh JWT beside it; Descope's 401 when the header is
    /// missing, malformed or names another project.
    func caller(_ request: Request) throws(DescopeAnswer) -> (project: String, refreshJwt: String?) {
        guard let value = request.bearerToken else {
            throw DescopeAnswer(401, DescopeCode.invalidRequest, "Unauthorized", "Send Authorization: Bearer <projectId>")
        }
        let colon = value.utf8.firstIndex(of: UInt8(ascii: ":"))
        let project = String(value[..<(colon ?? value.endIndex)])
        guard knows(project) else {
            throw DescopeAnswer(401, DescopeCode.invalidRequest, "Unauthorized", "Unknown project id")
        }
        guard let colon, value.index(after: colon) < value.endIndex else { return (project, nil) }
        return (project, String(value[value.index(after: colon)...]))
    }
}
