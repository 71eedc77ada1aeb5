/// The names of well-known passkey providers by the AAGUID their authenticator announces at
/// registration (from the community list passkeydeveloper/passkey-authenticator-aaguids): a new
/// passkey the person did not name is called after where it lives ("iCloud Keychain", "1Password")
/// rather than "Passkey". Unknown and all-zero AAGUIDs (many security keys, virtual authenticators)
/// have no name here.
enum AuthenticatorNames {
    /// The provider's name for the 16 AAGUID bytes, or nil.
    static func name(aaguid: [UInt8]) -> String? {
        guard aaguid.count == 16 else { return nil }
        let hex = aaguid.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
        return known[hex]
    }

    /// AAGUIDs written without their dashes.
    private static let known: [String: String] = [
        "ea9b8d664d011d213ce4b6b48cb575d4": "Google Password Manager",
        "adce000235bcc60a648b0b25f1f05503": "Chrome on Mac",
        "b53976664885aa6bcebfe52262a439a2": "Chromium Browser",
        "771b48fdd3d44f749232fc157ab0507a": "Edge on Mac",
        "08987058cadc4b81b6e130de50dcbe96": "Windows Hello",
        "9ddd1817af5a4672a2b93e3dd95000a9": "Windows Hello",
        "6028b017b1d44c02b4b3afcdafc96bb2": "Windows Hello",
        "d345266801fd4c12926c83a4204853aa": "Microsoft Password Manager",
        "fbfc3007154e4ecc8c0b6e020557d7bd": "iCloud Keychain",
        "dd4ec289e01d41c9bb8970fa845d4bf2": "iCloud Keychain (Managed)",
        "53414d53554e47000000000000000000": "Samsung Pass",
        "bada5566a7aa401fbd9645619a55120d": "1Password",
        "d548826e79b4db40a3d811116f7e8349": "Bitwarden",
        "531126d6e717415c93203d9aa6981239": "Dashlane",
        "b78a0a556ef8d246a042ba0f6d55050c": "LastPass",
        "b84e404815dc4dd08640f4f60813c8af": "NordPass",
        "0ea242b443c44a1b8b17dd6d0b6baec6": "Keeper",
        "50726f746f6e5061737350726f746f6e": "Proton Pass",
        "fdb141b25d84443e8a354698c205a502": "KeePassXC",
        "f38095407f1449c1a8b38f813b225541": "Enpass"
    ]
}
