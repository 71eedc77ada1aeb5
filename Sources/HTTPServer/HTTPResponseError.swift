/// An error that knows how it reaches HTTP: a status and a short message safe to show the
/// client. The router answers these as they say; any other error becomes a logged, plain 500.
public protocol HTTPResponseError: Error {
    var status: Int { get }
    var message: String { get }
}
