/// A passkey ceremony's server half begun: the WebAuthn options for the platform's call, as JSON
/// text (`{"publicKey": …}`, what `PublicKeyCredential.parseCreationOptionsFromJSON` /
/// `parseRequestOptionsFromJSON` take), and the transaction the finish names.
public struct PasskeyStart: Sendable, Hashable {
    public var transactionID: String
    public var optionsJSON: String
    /// Whether the options are for `create()` (a new passkey) rather than `get()`.
    public var create: Bool

    public init(transactionID: String, optionsJSON: String, create: Bool) {
        (self.transactionID, self.optionsJSON, self.create) = (transactionID, optionsJSON, create)
    }
}
