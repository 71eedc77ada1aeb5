import ServerSeam

extension MailBrand {
    /// `mail` with this brand's logo atop its HTML (an app's, named by its alt text); unchanged
    /// without a logo. The words already carry the brand's name (`MailBrand.current`).
    func withLogo(_ mail: OutgoingMail) -> OutgoingMail {
        guard let logoURL else { return mail }
        var mail = mail
        mail.html =
            "<p><img src=\"\(VerificationMail.escape(logoURL))\" alt=\"\(VerificationMail.escape(name))\" height=\"40\"></p>\n"
            + mail.html
        return mail
    }
}
