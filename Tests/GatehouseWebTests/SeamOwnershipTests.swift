import Foundation
import Testing

/// Issue 23: front-ends reach users only through operations (the `Accounts` module, whose backend,
/// database, budgets and audit writer are internal to it). No front-end folder names them either —
/// read in the code itself, with comments and string literals left out, so a doc comment may still
/// speak of "the backend".
@Suite struct SeamOwnershipTests {
    /// Every folder of the web module that speaks a wire format or renders pages.
    static let frontEnds = [
        "AccountPages", "AdminAPI", "Console", "DescopeAPI", "InsForgeAPI", "Mailbox", "OAuth", "PocketBaseAPI",
        "SuperTokensAPI", "SuperTokensFDI", "TestControls"
    ]

    /// What only operations may name.
    static let internals = [
        "backend", "pageBackend", "database", "budgets", "limiter", "AppDatabase", "AuthAPI", "AuthAdminAPI", "AuditTrail"
    ]

    @Test func noFrontEndNamesTheBackendTheLimiterOrTheDatabase() throws {
        var offenders: [String] = []
        for folder in Self.frontEnds {
            let root = TestGatehouse.repositoryRoot + "/Sources/GatehouseWeb/" + folder
            #expect(FileManager.default.fileExists(atPath: root), "no folder \(folder)")
            let files = FileManager.default.enumerator(atPath: root)
            while let path = files?.nextObject() as? String {
                guard path.hasSuffix(".swift") else { continue }
                let lines = try String(contentsOfFile: root + "/" + path, encoding: .utf8).split(
                    separator: "\n", omittingEmptySubsequences: false)
                for (number, line) in lines.enumerated() {
                    let code = Self.code(of: String(line))
                    let names = Self.identifiers(in: code)
                    if let name = Self.internals.first(where: names.contains) ?? (code.contains(".audit.") ? ".audit" : nil) {
                        offenders.append("\(folder)/\(path):\(number + 1) names \(name)")
                    }
                }
            }
        }
        #expect(offenders.isEmpty, Comment(rawValue: "\(offenders.count) lines:\n" + offenders.joined(separator: "\n")))
    }

    /// Issue 45: the web module speaks the operations' read models (`AuditLine`, `SessionRow`, …),
    /// never Store's rows. `Package.swift` leaves Store out of its dependencies, but SwiftPM would
    /// still let a file import it (every module of the package is on the search path): this reads
    /// every file of the module, `Web/` included.
    @Test func noWebFileImportsTheStore() throws {
        let root = TestGatehouse.repositoryRoot + "/Sources/GatehouseWeb"
        var offenders: [String] = []
        let files = FileManager.default.enumerator(atPath: root)
        while let path = files?.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
            for line in text.split(separator: "\n") where Self.importsStore(String(line)) {
                offenders.append("\(path): \(line)")
            }
        }
        #expect(offenders.isEmpty, Comment(rawValue: offenders.joined(separator: "\n")))
    }

    /// Whether a line imports the Store module, whatever its attributes and access level.
    static func importsStore(_ line: String) -> Bool {
        let words = Self.identifiers(in: Self.code(of: line))
        return words.contains("import") && words.contains("Store")
    }

    /// The check finds what it is meant to find, and only in code.
    @Test func theCheckSeesCodeAndSkipsCommentsAndStrings() {
        #expect(Self.identifiers(in: Self.code(of: "let user = try await env.backend.currentUser(s)")).contains("backend"))
        #expect(Self.code(of: "await env.audit.record(.signOut)").contains(".audit."))
        #expect(!Self.identifiers(in: Self.code(of: "/// Asks the backend for the user.")).contains("backend"))
        #expect(!Self.identifiers(in: Self.code(of: #"message: "The backend could not be reached.""#)).contains("backend"))
        #expect(!Self.identifiers(in: Self.code(of: "let backendSession = signedIn.backendSession")).contains("backend"))
        #expect(Self.importsStore("import Store"))
        #expect(Self.importsStore("@testable internal import Store"))
        #expect(!Self.importsStore("import StoreKit"))
        #expect(!Self.importsStore("/// Rows stay in Store: import Accounts instead."))
    }

    /// `line` without its string literals' contents and its `//` comment.
    static func code(of line: String) -> String {
        var code = ""
        var inString = false
        var escaped = false
        var previous: Character = " "
        for character in line {
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                    code.append(character)
                }
                continue
            }
            if character == "/" && previous == "/" {
                code.removeLast()
                break
            }
            if character == "\"" { inString = true }
            code.append(character)
            previous = character
        }
        return code
    }

    /// The identifiers in a line of code.
    static func identifiers(in code: String) -> Set<String> {
        Set(code.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
    }
}
