import Foundation

/// Freshly made recovery codes as a page shows them once: the list, and the same codes as a text
/// file the person downloads (a `data:` link, so it works without scripts and nothing is kept
/// on the server to fetch later).
enum RecoveryCodesFile {
    /// The template keys `newCodes` and `codesFile`.
    static func context(_ codes: [String], for place: String) -> [String: Any] {
        ["newCodes": codes, "codesFile": dataURL(codes, for: place)]
    }

    static func dataURL(_ codes: [String], for place: String) -> String {
        let text =
            "Gatehouse recovery codes for \(place)\n"
            + "Each code signs you in once if you lose your authenticator app.\n\n"
            + codes.joined(separator: "\n") + "\n"
        let encoded = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "data:text/plain;charset=utf-8," + encoded
    }
}
