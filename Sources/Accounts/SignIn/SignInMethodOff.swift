import HTTPServer

/// A sign-in by a method `--sign-in-methods` turned off, refused by its owner whichever way in
/// asked; each API answers it in its own error shape (403), the pages show it on the form.
public struct SignInMethodOff: HTTPResponseError {
    let method: SignInMethod

    public var status: Int { 403 }
    public var message: String { "Signing in with \(method.phrase) is turned off on this server." }
}
