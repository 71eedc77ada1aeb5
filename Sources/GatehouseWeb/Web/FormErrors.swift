import AuthCore

/// Messages for a form, by field, in the order found: templates show each next to its field and
/// all of them in a summary at the top.
struct FormErrors {
    private(set) var messages: [(field: String, message: String)] = []

    var isEmpty: Bool { messages.isEmpty }

    mutating func add(_ field: String, _ message: String) {
        guard !messages.contains(where: { $0.field == field }) else { return }
        messages.append((field, message))
    }

    mutating func add(_ errors: [FieldError]) {
        for error in errors { add(error.field, error.message) }
    }

    /// `errors` (field → message) and `errorList` (`[{field, message}]`, field errors only: the
    /// form-wide message has its own alert) for the templates. Fields without an error are absent,
    /// because Mustache treats an empty string as true.
    var context: [String: Any] {
        var byField: [String: String] = [:]
        for entry in messages { byField[entry.field] = entry.message }
        return [
            "errors": byField,
            "errorList": messages.filter { $0.field != "form" }.map { ["field": $0.field, "message": $0.message] }
        ]
    }
}
