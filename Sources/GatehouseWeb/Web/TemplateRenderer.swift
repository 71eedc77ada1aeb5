import Foundation
import HTTPServer
import Mustache

/// Renders `Templates/*.mustache`. Every template is parsed at start-up, so a broken or missing one
/// stops Gatehouse before it serves anything, naming the file.
public struct TemplateRenderer: Sendable {
    /// The pages Gatehouse renders; start-up fails if any is missing.
    static let requiredTemplates = [
        "layout", "sign-up", "sign-in", "verify", "resend-verification", "account", "linked", "sessions",
        "mailbox", "error", "message", "console-sign-in", "console-audit",
        "console-users", "console-user", "console-test-users"
    ]

    private let library: MustacheLibrary

    public init(directory: String) async throws {
        // The Mustache loader does not follow a symlinked folder; resolve it first.
        let directory = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw TemplateError.missingDirectory(directory)
        }
        do {
            library = try await MustacheLibrary(directory: directory)
        } catch let error as MustacheLibrary.ParserError {
            throw TemplateError.unparsable(file: error.filename, reason: "\(error.error)")
        }
        for name in Self.requiredTemplates where library.getTemplate(named: name) == nil {
            throw TemplateError.missingTemplate("\(directory)/\(name).mustache")
        }
    }

    /// Renders a page template into an HTML response.
    func page(_ name: String, _ context: [String: Any], status: Int = 200) -> Response {
        let html = library.render(context, withTemplate: name) ?? ""
        return .html(html, status: status)
    }
}

/// Why templates could not be loaded; the message names the file.
public enum TemplateError: Error, CustomStringConvertible {
    case missingDirectory(String)
    case missingTemplate(String)
    case unparsable(file: String, reason: String)

    public var description: String {
        switch self {
        case .missingDirectory(let path): return "templates folder not found: \(path)"
        case .missingTemplate(let path): return "template missing: \(path)"
        case .unparsable(let file, let reason): return "template \(file) does not parse: \(reason)"
        }
    }
}
