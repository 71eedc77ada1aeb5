import AuthCore

/// What the users' backend offers, as front-ends ask it to decide which routes, controls and mails
/// to show — without naming the backend, which only operations reach.
extension PageEnvironment {
    /// The acts the backend supports (`Capability`).
    var capabilities: Set<Capability> { backend.capabilities }
    /// Whether sign-up and email change mail a code or a link.
    var verificationMode: VerificationMode { backend.verificationMode }
    /// Whether an email change's confirmation asks for the account's password (PocketBase's does).
    var confirmsEmailChangeWithPassword: Bool { backend.confirmsEmailChangeWithPassword }
}
