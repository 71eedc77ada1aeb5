import Foundation
import HTTPServer
import Mustache

/// Every page template Gatehouse renders (`Templates/NAME.mustache`), and the layouts they extend.
/// Pages are rendered only through these cases, so the start-up check below covers each one.
enum Template: String, CaseIterable, Sendable {
    case layout
    case consoleLayout = "console-layout"
    case signUp = "sign-up"
    case signIn = "sign-in"
    case signInCode = "sign-in-code"
    case magicLink = "magic-link"
    case enchantedLink = "enchanted-link"
    case verify
    case resendVerification = "resend-verification"
    case continuePage = "continue"
    case account, linked, sessions, error, message
    case accountEmail = "account-email"
    case confirmEmail = "confirm-email"
    case testIdentityProvider = "test-idp"
    case consoleSignIn = "console-sign-in"
    case consoleAudit = "console-audit"
    case consoleUsers = "console-users"
    case consoleUsersBulk = "console-users-bulk"
    case consoleMailbox = "console-mailbox"
    case consoleUser = "console-user"
    case consoleTestUsers = "console-test-users"
    case consoleManagementKeys = "console-management-keys"
    case consoleStaff = "console-staff"
    case consoleTesting = "console-testing"
    case consoleProviders = "console-providers"
    case consoleApp = "console-app"
    case consoleProvider = "console-provider"
    case accountSecurity = "account-security"
    case mfa
    case consoleSecurity = "console-security"
    case forgotPassword = "forgot-password"
    case resetPasswordSent = "reset-password-sent"
    case resetPassword = "reset-password"
    case notMe = "not-me"
    case consoleWebhooks = "console-webhooks"
    case consoleWebhook = "console-webhook"
    case consoleWebhookBin = "console-webhook-bin"
    case rowndHub = "rownd-hub"
    case rowndHubLink = "rownd-hub-link"
}

/// Renders `Templates/*.mustache`. Every template is parsed at start-up, so a broken or missing one
/// stops Gatehouse before it serves anything, naming the file.
public struct TemplateRenderer: Sendable {
    private let library: MustacheLibrary
    private let rendered = RenderedPages()

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
        for template in Template.allCases where library.getTemplate(named: template.rawValue) == nil {
            throw TemplateError.missingTemplate("\(directory)/\(template.rawValue).mustache")
        }
    }

    /// Renders a page template into an HTML response.
    func page(_ template: Template, _ context: [String: Any], status: Int = 200) -> Response {
        let body = rendered.page(template.rawValue, context) { library.render($0, withTemplate: template.rawValue) ?? "" }
        return .html(bytes: body, status: status)
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
