import Accounts
import AuthCore
import Foundation
import HTTPServer
import ServerSeam

/// The Testing page's account clock: staff move one account's time ahead, or end one kind of its
/// credentials at once — the owner the API's `/_/api/test/clock` uses (`AccountClockControl`).
extension TestingPage {
    func registerClock(on router: inout Router) {
        router.consolePage(.post, Self.path + "/clock", env) { visit, staff in
            try await guarded(visit) {
                let control = AccountClockControl(env: env.accounts, caller: .staff(staff))
                return try await refusingFields(visit, staff, section: "clock") {
                    let seconds = try Self.seconds(visit.field("seconds"))
                    let user = try await Self.account(visit.field("email"), control)
                    let (offset, now) = try await control.advance(user, seconds: seconds, request: visit.request)
                    let reads = "\(user.email)'s clock now reads \(DisplayDate.dateTime(now))"
                    return ["result": "\(reads): \(Self.duration(offset)) ahead of the server's."]
                }
            }
        }
        router.consolePage(.post, Self.path + "/clock/expire-now", env) { visit, staff in
            try await guarded(visit) {
                let control = AccountClockControl(env: env.accounts, caller: .staff(staff))
                return try await refusingFields(visit, staff, section: "expire") {
                    guard let kind = AccountClockControl.Kind(rawValue: try visit.field("kind")) else {
                        throw AuthError.validation([FieldError(field: "kind", message: "Choose what to end.")])
                    }
                    let user = try await Self.account(visit.field("email"), control)
                    let ended = try await control.expireNow(user, kind: kind, request: visit.request)
                    return ["result": "Ended \(Self.counted(ended, Self.noun(kind))) of \(user.email)."]
                }
            }
        }
    }

    /// Runs one of the page's acts: the page with what it gave (its `result` line and any more
    /// keys), or — for a refused field — the page again (422) with each problem beside its field of
    /// `section`'s form, and the form as typed.
    func refusingFields(
        _ visit: Visit, _ staff: Staff, section: String, _ act: () async throws -> [String: Any]
    ) async throws -> Response {
        do {
            return try await render(visit, staff, try await act())
        } catch AuthError.validation(let fields) {
            let errors = [section: Dictionary(fields.map { ($0.field, $0.message) }) { first, _ in first }]
            return try await render(
                visit, staff, ["errors": errors, "forms": [section: Self.formValues(visit)]], status: 422)
        }
    }

    /// The account at `email`; a refusal naming the field when there is none.
    static func account(_ email: String, _ control: AccountClockControl) async throws -> User {
        do {
            return try await control.account(email: email, userID: nil)
        } catch AuthError.userNotFound {
            throw AuthError.validation([FieldError(field: "email", message: "No account has this address.")])
        }
    }

    /// The seconds typed; the owner refuses a number out of range, this a text that is none.
    private static func seconds(_ text: String) throws -> Double {
        guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)) else {
            throw AuthError.validation([FieldError(field: "seconds", message: "Give a number of seconds, such as 3600.")])
        }
        return seconds
    }

    /// `seconds` as people read an offset: whole days, hours or minutes where it is one, else seconds.
    static func duration(_ seconds: TimeInterval) -> String {
        let whole = Int(seconds.rounded())
        for (unit, size) in [("day", 86_400), ("hour", 3600), ("minute", 60)] where whole >= size && whole % size == 0 {
            return counted(whole / size, unit)
        }
        return counted(whole, "second")
    }

    /// `count` of `noun`, the noun in the plural unless the count is one.
    private static func counted(_ count: Int, _ noun: String) -> String {
        "\(CountText.grouped(count)) \(noun)\(count == 1 ? "" : "s")"
    }

    /// What `expire-now` of `kind` counts, one of them.
    private static func noun(_ kind: AccountClockControl.Kind) -> String {
        switch kind {
        case .sessions: "session"
        case .codes: "code"
        case .links: "link"
        case .secondSteps: "pending second step"
        case .rateLimitCounts: "rate-limit count"
        }
    }
}
