// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Gatehouse",
    // macOS 15 for `Synchronization.Mutex` (AuthCore, HTTPServer) and task executors (HTTPServer).
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "gatehouse", targets: ["gatehouse"]),
        .library(name: "AuthCore", targets: ["AuthCore"])
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", exact: "2.1.1"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2")
    ],
    targets: [
        // C system libraries; each is imported by exactly one Swift module.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CCrypt", providers: [.apt(["libcrypt-dev"])]),
        // glibc's <malloc.h> (malloc_trim), for giving freed memory back after a burst.
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CZxcvbn", providers: [.apt(["libzxcvbn-dev"])]),
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),

        // Structured header values with parameters, shared by HTTP uploads and MIME mail.
        .target(name: "HeaderParameters"),
        // PocketBase's filter and sort syntax compiled to bound SQLite SQL over declared fields.
        .target(name: "PocketBaseFilter"),
        // SHA-256, HMAC, ECDSA P-256 and RSA PKCS #1 v1.5 from the system's libcrypto (OpenSSL 3): the
        // signatures JWTs, id_tokens and passkeys need. Not swift-crypto: building its BoringSSL was half of
        // a clean debug build (docs/ARCHITECTURE.md, "Dependencies").
        .target(name: "SystemCrypto", dependencies: ["COpenSSL"]),
        // UTC calendar text written and read by hand, so the server never loads ICU's calendars.
        .target(name: "CivilTime"),
        .target(
            name: "HTTPServer",
            dependencies: [
                "CMicroHTTPD", "HeaderParameters", "CivilTime",
                .product(name: "Logging", package: "swift-log")
            ]),
        .target(
            name: "AuthCore",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                // SHA-256 for PKCE on InsForge's hosted sign-in (CryptoKit on Apple platforms).
                .target(name: "SystemCrypto", condition: .when(platforms: [.linux]))
            ]),
        // The server's one password rule: PasswordPolicy's length and a minimum zxcvbn strength score.
        .target(name: "PasswordStrength", dependencies: ["CZxcvbn", "AuthCore"]),
        // The server's side of the seam: what Gatehouse's own modules say to and about backends that no
        // app needs (mail out, test users in bulk, the feed of account changes). Not a product: apps
        // import `AuthCore` alone.
        .target(name: "ServerSeam", dependencies: ["AuthCore", .product(name: "Logging", package: "swift-log")]),
        // Argon2's memory filling (RFC 9106) with an AVX2 kernel picked at run time. Optimised even in
        // debug builds: at -O0 one 64 MiB hash takes seconds, and the test suites sign in thousands of times.
        .target(name: "CArgon2Fill", cSettings: [.unsafeFlags(["-O2"])]),
        .target(name: "Secrets", dependencies: ["CSodium", "CCrypt", "CArgon2Fill"]),
        // The WebAuthn relying party: CBOR, authenticator data, COSE keys, client data, attestation
        // (`none`, `packed` self) and assertion checks. Keeps nothing; Accounts owns the ceremonies.
        .target(name: "WebAuthn", dependencies: ["SystemCrypto", "Secrets"]),
        // OAuth 2.0 / OIDC building blocks: PKCE, JWKS, id_token checks, provider presets, callback allow-lists.
        .target(
            name: "OAuth",
            dependencies: [
                "AuthCore", "Secrets", "SystemCrypto"
            ]),
        // Second factor: RFC 6238 TOTP, base32, recovery codes and QR codes as SVG (LocalAuth's and the pages' TOTP).
        .target(
            name: "TwoFactor",
            dependencies: [
                "CQREncode", "SystemCrypto", "Secrets"
            ]),
        .target(
            name: "Store",
            dependencies: [
                "AuthCore", "ServerSeam", "Secrets", "PocketBaseFilter", "CivilTime", "TwoFactor",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The C API under GRDB, for the per-request reads (`HotReads`).
                .product(name: "GRDBSQLite", package: "GRDB.swift")
            ]),
        .target(
            name: "LocalAuth",
            dependencies: [
                "AuthCore", "ServerSeam", "Store", "Secrets", "TwoFactor", "PasswordStrength",
                .product(name: "Logging", package: "swift-log")
            ]),
        // Gatehouse's rules around the seam: one owner per act (sign-up, sign-in, second step, codes,
        // reset, email change, sessions, impersonation, staff acts), the only holder of the backend,
        // the database, the limiter and the audit trail. Front-ends import it and nothing below it
        // that reaches users.
        .target(
            name: "Accounts",
            dependencies: [
                "HTTPServer", "AuthCore", "ServerSeam", "Store", "Secrets", "OAuth", "TwoFactor", "CivilTime",
                "PasswordStrength", "WebAuthn", .product(name: "Logging", package: "swift-log")
            ]),
        .target(
            name: "GatehouseWeb",
            dependencies: [
                "Accounts", "HTTPServer", "AuthCore", "ServerSeam", "Secrets", "OAuth", "TwoFactor", "CivilTime",
                "PasswordStrength", "WebAuthn",
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log")
            ]),
        // The SMTP mail catcher (`serve --smtp`): a pure SMTP state machine and MIME parser inside, a
        // thread per connection over POSIX sockets outside; delivers through ServerSeam's `Mailer`. Not
        // SwiftNIO: it cost 80-100 s of CPU in a clean debug build for one small listener
        // (docs/ARCHITECTURE.md, "Dependencies").
        .target(
            name: "MailCatcher",
            dependencies: ["ServerSeam", "HeaderParameters", .product(name: "Logging", package: "swift-log")]),
        // The untrusted-input parsers as fuzz harnesses; `gatehouse-fuzz` runs them under libFuzzer
        // when built with -DFUZZING (`make fuzz`), and the corpus is replayed by FuzzHarnessTests.
        .target(name: "FuzzHarnesses", dependencies: ["HTTPServer", "MailCatcher", "AuthCore", "PocketBaseFilter", "WebAuthn"]),
        .executableTarget(name: "gatehouse-fuzz", dependencies: ["FuzzHarnesses"]),
        .executableTarget(
            name: "gatehouse",
            dependencies: [
                "HTTPServer", "AuthCore", "ServerSeam", "Secrets", "Store", "LocalAuth", "Accounts", "GatehouseWeb",
                "MailCatcher", "OAuth", "PasswordStrength",
                .target(name: "CMalloc", condition: .when(platforms: [.linux])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log")
            ]),

        // The `.stopsWhatItStarts` trait: every server or peer a test starts is stopped when it ends.
        .target(name: "TestScope", path: "Tests/TestScope"),
        // A raw-socket HTTP/1.1 client the suites use to talk to the real server.
        .target(name: "HTTPTestClient", path: "Tests/HTTPTestClient"),
        // Starts the real PocketBase binary (from PATH) with an SMTP sink, for the client-core suites.
        .target(name: "PocketBaseTestSupport", dependencies: ["TestScope"], path: "Tests/PocketBaseTestSupport"),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "HTTPTestClient"]),
        // The reference libargon2, test-only: Gatehouse's multi-lane argon2 is checked against it.
        .systemLibrary(
            name: "CArgon2Reference", path: "Tests/CArgon2Reference", pkgConfig: "libargon2",
            providers: [.apt(["libargon2-dev"])]),
        // libsodium and libargon2 directly, to check Gatehouse's argon2 against both byte for byte.
        .testTarget(name: "SecretsTests", dependencies: ["Secrets", "CSodium", "CArgon2Reference"]),
        .testTarget(
            name: "PocketBaseFilterTests",
            dependencies: ["PocketBaseFilter", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "FuzzHarnessTests", dependencies: ["FuzzHarnesses"]),
        .testTarget(
            name: "StoreTests",
            dependencies: [
                "Store", "AuthCore", "ServerSeam", "Secrets", "TwoFactor", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift")
            ]),
        .testTarget(
            name: "LocalAuthTests",
            dependencies: [
                "LocalAuth", "Secrets", "Store", "AuthCore", "TwoFactor",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log")
            ]),
        // The owners in Accounts called directly, without HTTP: second step, budgets, trust, sessions.
        .testTarget(
            name: "AccountsTests",
            dependencies: [
                "Accounts", "LocalAuth", "Store", "AuthCore", "HTTPServer", "Secrets", "TwoFactor",
                .product(name: "Logging", package: "swift-log")
            ]),
        .testTarget(
            name: "MailCatcherTests",
            dependencies: [
                "MailCatcher", "AuthCore", "Secrets", "Store", "HTTPTestClient", "TestScope",
                .product(name: "Logging", package: "swift-log")
            ]),
        .testTarget(
            name: "GatehouseWebTests",
            dependencies: [
                "GatehouseWeb", "Accounts", "LocalAuth", "Secrets", "Store", "AuthCore", "ServerSeam", "HTTPServer",
                "HTTPTestClient", "MailCatcher", "PocketBaseTestSupport", "TestScope", "OAuth", "TwoFactor",
                // malloc_trim, so ServerMemoryTests measures memory held rather than the allocator's free lists.
                .target(name: "CMalloc", condition: .when(platforms: [.linux])),
                "SystemCrypto", "WebAuthnTestSupport",
                .product(name: "GRDB", package: "GRDB.swift")
            ]),
        .testTarget(
            name: "ClientCoreTests",
            dependencies: [
                "AuthCore", "ServerSeam", "LocalAuth", "Store", "Secrets", "PocketBaseTestSupport", "TestScope", "GatehouseWeb",
                "Accounts", "HTTPServer", "TwoFactor", "WebAuthnTestSupport",
                .product(name: "Logging", package: "swift-log")
            ]),
        .testTarget(
            name: "OAuthTests",
            dependencies: [
                "OAuth", "Secrets", "AuthCore", "SystemCrypto"
            ]),
        .testTarget(name: "TwoFactorTests", dependencies: ["TwoFactor", "CQREncode"]),
        .testTarget(name: "SystemCryptoTests", dependencies: ["SystemCrypto", "Secrets"]),
        .testTarget(name: "PasswordStrengthTests", dependencies: ["PasswordStrength"]),
        // A P-256 software authenticator for the tests (the relying party's, and the client core's).
        .target(
            name: "WebAuthnTestSupport", dependencies: ["WebAuthn", "SystemCrypto", "Secrets"], path: "Tests/WebAuthnTestSupport"),
        .testTarget(name: "WebAuthnTests", dependencies: ["WebAuthn", "SystemCrypto", "Secrets", "WebAuthnTestSupport"])
    ],
    swiftLanguageModes: [.v6]
)
