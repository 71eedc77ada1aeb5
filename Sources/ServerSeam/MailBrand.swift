/// Whose name a mail goes out in: Gatehouse's, or an app's for a mail asked for inside that app's
/// sign-in flow (issue 49, item 4) — its name in the subject and body, its logo atop the HTML. The
/// pages set it around a request in an app's flow; the mail's writer reads it.
public struct MailBrand: Sendable, Equatable {
    public var name: String
    /// The app's logo (https, or http on localhost, as the app's registration checked); nil for none.
    public var logoURL: String?

    public init(name: String, logoURL: String? = nil) {
        self.name = name
        self.logoURL = logoURL
    }

    public static let gatehouse = MailBrand(name: "Gatehouse")

    /// The brand of the mails the current request writes.
    @TaskLocal public static var current = MailBrand.gatehouse
}
