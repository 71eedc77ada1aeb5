/// Counts as the pages show them: digits grouped in threes with commas (`12,345`), as
/// `Int.formatted()` writes them in English, without the locale lookup that loads ICU into the
/// server.
public enum CountText {
    public static func grouped(_ count: Int) -> String {
        let digits = String(count.magnitude)
        var text = count < 0 ? "-" : ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }
}
