import Accounts
import AuthCore
import CivilTime
import Foundation
import HTTPServer

/// `/account` (profile and the `setProfile` form), and `/account/linked` when no sign-in providers
/// are set up (with providers, `LinkedAccountsPages` serves it).
struct AccountPages: Sendable {
    let env: PageEnvironment
    /// Whether this type serves `/account/linked` (only without the providers feature).
    let servesLinkedAccounts: Bool

    func register(on router: inout Router) {
        router.page(.get, "/account", env) { visit in
            guard let user = visit.user else { return signInFirst(visit) }
            return try await render(visit, user: user, form: ProfileForm(profile: user.profile), errors: FormErrors())
        }
        router.page(.post, "/account", env, save)
        guard servesLinkedAccounts else { return }
        router.page(.get, "/account/linked", env) { visit in
            guard visit.user != nil else { return signInFirst(visit) }
            return env.renderer.page(
                .linked,
                visit.context(
                    title: "Linked accounts",
                    [
                        "providers": [[String: Any]](),
                        "supported": env.capabilities.contains(.externalAuths)
                    ]))
        }
    }

    private func signInFirst(_ visit: Visit) -> Response {
        .redirect(to: URLQuery.path("/auth/sign-in", [("redirect", visit.request.path)]))
    }

    private func render(
        _ visit: Visit, user: User, form: ProfileForm, errors: FormErrors, status: Int = 200
    ) async throws -> Response {
        let name = user.profile.name ?? ""
        // Right after sign-up (the welcome or verified notice), offer a passkey for next time,
        // unless the account was made with one.
        let notice = (try? visit.request.query.single("notice")).flatMap { $0 }.flatMap(Notice.init(rawValue:))
        let justJoined = notice == .welcome || notice == .verified
        let passkeyPrompt = justJoined ? try await PasskeyPages(env: env).hasNone(visit) : false
        return env.renderer.page(
            .account,
            visit.context(
                title: "Your account",
                [
                    "user": [
                        "id": user.id.rawValue, "email": user.email, "emailVerified": user.emailVerified,
                        "name": name, "bio": user.profile.bio ?? "", "avatarURL": user.profile.avatarURL ?? "",
                        "createdAt": DisplayDate.format(user.createdAt), "initials": Initials.of(name: name, email: user.email),
                        "canChangeEmail": env.capabilities.contains(.emailChange)
                    ],
                    "passkeyPrompt": passkeyPrompt
                ].merging(form.context) { $1 }.merging(errors.context) { $1 }), status: status)
    }

    private func save(_ visit: Visit) async throws -> Response {
        guard let signedIn = visit.signedIn else { return signInFirst(visit) }
        let user = signedIn.user
        var form = try ProfileForm(visit.form)
        var errors = form.validate()
        if errors.isEmpty {
            let patch = form.patch(against: user.profile)
            if patch.isEmpty { return .redirect(to: "/account?notice=saved") }
            do {
                _ = try await ProfileUpdate(env: env.accounts, via: nil).apply(patch, of: signedIn, request: visit.request)
                return .redirect(to: "/account?notice=saved")
            } catch AuthError.validation(let fieldErrors) {
                for error in fieldErrors {
                    let field = ProfileForm.ownFields.contains(error.field) ? error.field : "custom"
                    errors.add(field, error.message)
                    form.markCustomError(key: error.field, message: error.message)
                }
            } catch let error as AuthError {
                errors.add("form", error.pageMessage)
            }
        }
        return try await render(visit, user: user, form: form, errors: errors, status: 422)
    }
}

/// Dates as the pages show them, in UTC and in the server's default English (`23 November 2026`,
/// `23 Nov 2026 at 12:14:07 PM`, as the format styles wrote them), written by hand: a format
/// style loads ICU's calendars into the server, for the account page on every request.
enum DisplayDate {
    /// The day, e.g. "23 November 2026".
    static func format(_ date: Date) -> String {
        let (year, month, day, _) = components(date)
        return "\(day) \(months[Int(month) - 1]) \(year)"
    }

    /// Date and time to the second, for tables of events and sessions.
    static func dateTime(_ date: Date) -> String {
        let (year, month, day, millisecond) = components(date)
        let second = millisecond / 1000
        return "\(day) \(months[Int(month) - 1].prefix(3)) \(year) at \(clock(minute: second / 60, second: second % 60))"
    }

    /// Date and time to the minute, short enough for a list column: "26 Nov 2026, 7:47 AM".
    static func dayAndMinute(_ date: Date) -> String {
        let (year, month, day, millisecond) = components(date)
        return "\(day) \(months[Int(month) - 1].prefix(3)) \(year), \(clock(minute: millisecond / 60_000))"
    }

    /// "7:47 AM", or "7:47:08 AM" with `second`, from the minute of the day; the narrow no-break
    /// space English puts before the day period.
    private static func clock(minute: Int64, second: Int64? = nil) -> String {
        let hour = minute / 60
        let seconds = second.map { ":" + twoDigits($0) } ?? ""
        return "\((hour + 11) % 12 + 1):\(twoDigits(minute % 60))\(seconds)\u{202F}\(hour < 12 ? "AM" : "PM")"
    }

    private static let months = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December"
    ]

    private static func components(_ date: Date) -> (year: Int64, month: Int64, day: Int64, millisecondOfDay: Int64) {
        CivilTime.components(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}

enum Initials {
    /// Up to two letters for the avatar circle: from the name's words, else the email's first letter.
    static func of(name: String, email: String) -> String {
        if let letters = ofASCII(name: name, email: email) { return letters }
        let words = name.split(whereSeparator: \.isWhitespace).prefix(2)
        let letters = words.compactMap(\.first).map { String($0).uppercased() }.joined()
        return letters.isEmpty ? String(email.prefix(1)).uppercased() : letters
    }

    /// The same for an ASCII name and email, byte by byte (the account page asks on every request);
    /// nil for anything else.
    private static func ofASCII(name: String, email: String) -> String? {
        guard name.utf8.allSatisfy({ $0 < 0x80 }), email.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        let isSpace = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
        var letters: [UInt8] = []
        var atWordStart = true
        for byte in name.utf8 where letters.count < 2 {
            if isSpace(byte) {
                atWordStart = true
            } else if atWordStart {
                letters.append(byte)
                atWordStart = false
            }
        }
        if letters.isEmpty, let first = email.utf8.first { letters.append(first) }
        return String(decoding: letters.map { (0x61...0x7A).contains($0) ? $0 - 0x20 : $0 }, as: UTF8.self)
    }
}
