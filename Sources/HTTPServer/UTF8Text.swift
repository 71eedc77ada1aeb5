/// UTF-8 validation that works on every deployment target (`String(validating:)` needs macOS 15).
enum UTF8Text {
    /// The string for `bytes`, or nil when they are not valid UTF-8.
    static func string<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String? {
        let string = String(decoding: bytes, as: UTF8.self)
        // Decoding repairs invalid sequences with U+FFFD, which changes the bytes.
        return string.utf8.elementsEqual(bytes) ? string : nil
    }
}
