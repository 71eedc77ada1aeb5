import Accounts
import ServerSeam

extension RegisteredApp {
    /// The hosted page's `brand` context: the app's name, logo, theme stylesheet and legal links.
    var hostedPageContext: [String: Any] {
        var brand: [String: Any] = [
            "name": name, "initial": String(name.prefix(1)).uppercased(),
            "legal": termsURL != nil || privacyURL != nil
        ]
        if let logoURL { brand["logoURL"] = logoURL }
        if let accentColor { brand["themeHref"] = "/auth/app-theme.css?accent=" + accentColor.dropFirst() }
        if let termsURL { brand["termsURL"] = termsURL }
        if let privacyURL { brand["privacyURL"] = privacyURL }
        return brand
    }

    /// The mails asked for inside this app's flow go out in its name, with its logo.
    var mailBrand: MailBrand { MailBrand(name: name, logoURL: logoURL) }
}
