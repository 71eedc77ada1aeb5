import Secrets

/// `PublicKeyCredentialCreationOptionsJSON` (WebAuthn §5.4, Level 3's JSON form): what the page
/// passes to `PublicKeyCredential.parseCreationOptionsFromJSON` (or decodes itself) for
/// `navigator.credentials.create()`. Binary members are base64url text.
public struct CreationOptions: Sendable, Encodable, Equatable {
    public struct Entity: Sendable, Encodable, Equatable {
        public var id: String?
        public var name: String
        public var displayName: String?
    }

    public struct Parameter: Sendable, Encodable, Equatable {
        public var type = "public-key"
        public var alg: Int
    }

    public struct Selection: Sendable, Encodable, Equatable {
        public var residentKey: String
        public var requireResidentKey: Bool
        public var userVerification: String
    }

    public var rp: Entity
    public var user: Entity
    public var challenge: String
    public var pubKeyCredParams: [Parameter]
    public var timeout: Int
    public var excludeCredentials: [CredentialDescriptor]
    public var authenticatorSelection: Selection
    public var attestation: String

    /// Options for a discoverable credential (a passkey: the authenticator keeps the user handle,
    /// so sign-in needs no email), user verification required, no attestation asked for, ES256 then
    /// RS256; `exclude` keeps one authenticator from registering twice.
    public init(
        rp: RelyingParty, rpName: String, userHandle: [UInt8], userName: String, displayName: String, challenge: [UInt8],
        exclude: [CredentialDescriptor], timeout: Int = Ceremony.timeoutMilliseconds
    ) {
        self.rp = Entity(id: rp.id, name: rpName)
        user = Entity(id: Base64URL.encode(userHandle), name: userName, displayName: displayName)
        self.challenge = Base64URL.encode(challenge)
        pubKeyCredParams = COSEKey.Algorithm.allCases.map { Parameter(alg: $0.rawValue) }
        self.timeout = timeout
        excludeCredentials = exclude
        authenticatorSelection = Selection(residentKey: "required", requireResidentKey: true, userVerification: "required")
        attestation = "none"
    }
}

/// `PublicKeyCredentialRequestOptionsJSON` (§5.5) for `navigator.credentials.get()`. An empty
/// `allowCredentials` asks for a discoverable credential (no email typed, or autofill).
public struct RequestOptions: Sendable, Encodable, Equatable {
    public var challenge: String
    public var timeout: Int
    public var rpId: String
    public var allowCredentials: [CredentialDescriptor]
    public var userVerification: String

    public init(rp: RelyingParty, challenge: [UInt8], allow: [CredentialDescriptor], timeout: Int = Ceremony.timeoutMilliseconds)
    {
        self.challenge = Base64URL.encode(challenge)
        self.timeout = timeout
        rpId = rp.id
        allowCredentials = allow
        userVerification = "required"
    }
}

/// A credential named in options (`excludeCredentials`, `allowCredentials`).
public struct CredentialDescriptor: Sendable, Encodable, Equatable {
    public var type = "public-key"
    public var id: String
    public var transports: [String]?

    public init(id: [UInt8], transports: [String]) {
        self.id = Base64URL.encode(id)
        self.transports = transports.isEmpty ? nil : transports
    }
}

/// How long a ceremony may take: the browser's timeout and the challenge's lifetime.
public enum Ceremony {
    public static let timeoutMilliseconds = 300_000
    /// A challenge outlives the browser's timeout by a minute (a slow round trip), no more.
    public static let challengeLifetime: Double = 360
    /// Challenges are 32 random bytes (§13.4.3 asks for at least 16).
    public static let challengeLength = 32
}
