#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// IMF-fixdate formatting (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7).
enum HTTPDate {
    static func format(_ secondsSince1970: Int) -> String {
        var time = time_t(secondsSince1970)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "" }
        var buffer = [CChar](repeating: 0, count: 40)
        // The C locale's names are the English ones HTTP requires.
        let length = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
