import Store
import Testing

/// The rule behind `SessionKind`: a token of one kind can never hash like a token of another.
struct SessionKindTests {
    @Test func noSessionPrefixIsEmptyOrStartsAnother() {
        let prefixes = SessionKind.prefixes
        #expect(Set(prefixes).count == prefixes.count)
        for prefix in prefixes {
            #expect(!prefix.isEmpty)
            for other in prefixes where other != prefix {
                #expect(!other.hasPrefix(prefix), "\(other) starts with \(prefix)")
            }
        }
    }
}
