/// A stored password hash read in full — format, parameters, salt and digest — and held to the
/// cost bounds Gatehouse will spend on one sign-in. Imported hashes are untrusted input: a bcrypt
/// cost of 31 or argon2 with 4 GiB and 100 passes would let a few sign-in attempts starve every
/// other request or exhaust memory, so such hashes are refused at import and never run.
public enum StoredPasswordHash: Sendable, Equatable {
    /// `$2a$`, `$2b$` or `$2y$` with its cost (log₂ rounds).
    case bcrypt(cost: Int)
    /// `$argon2id$` or `$argon2i$` (version 19) with memory in KiB, passes and lanes.
    case argon2(variant: Argon2Variant, memoryKiB: Int, iterations: Int, parallelism: Int)

    public enum Argon2Variant: String, Sendable {
        case argon2id
        case argon2i
    }

    /// The bounds, said in errors and in the README: no accepted hash costs more than about four
    /// of today's argon2id hashes (64 MiB × 2 passes), so a guess at an imported account costs the
    /// server at most ~0.6 s (measured) rather than the ~3 s of argon2 at 256 MiB × 10 passes (issue 22).
    public enum Bounds {
        /// bcrypt's cost (log₂ rounds): 12 is four times PocketBase's default of 10.
        public static let bcryptCost = 4...12
        public static let argon2MemoryKiB = 8...262_144
        public static let argon2Iterations = 1...10
        public static let argon2Parallelism = 1...4
        /// Memory × passes in KiB, what argon2's time grows with: four times today's 65,536 × 2.
        public static let argon2Work = 524_288
    }

    /// Why a hash was refused, in words an import report can show next to the row.
    public struct Refusal: Error, Sendable, Equatable {
        public var message: String
    }

    /// Parses `hash`, refusing anything malformed or outside `Bounds`.
    public static func parse(_ hash: String) throws(Refusal) -> StoredPasswordHash {
        if hash.hasPrefix("$2") { return try parseBcrypt(hash) }
        if hash.hasPrefix("$argon2") { return try parseArgon2(hash) }
        throw Refusal(message: "The password hash is not bcrypt ($2a$, $2b$, $2y$) or argon2id.")
    }

    // bcrypt: `$2b$10$` + 22 characters of salt + 31 of digest, in bcrypt's base64 alphabet.
    private static func parseBcrypt(_ hash: String) throws(Refusal) -> StoredPasswordHash {
        let parts = hash.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, ["2a", "2b", "2y"].contains(parts[1]) else {
            throw Refusal(message: "The bcrypt hash is malformed: it must start with $2a$, $2b$ or $2y$ and a cost.")
        }
        guard parts[2].count == 2, parts[2].allSatisfy(\.isASCIIDigit), let cost = Int(parts[2]) else {
            throw Refusal(message: "The bcrypt hash has no two-digit cost.")
        }
        guard Bounds.bcryptCost.contains(cost) else {
            throw Refusal(
                message: "The bcrypt cost \(cost) is outside \(Bounds.bcryptCost.lowerBound)…\(Bounds.bcryptCost.upperBound).")
        }
        guard parts[3].count == 53, parts[3].unicodeScalars.allSatisfy(isBcryptBase64) else {
            throw Refusal(message: "The bcrypt hash's salt and digest are not 53 characters of bcrypt's alphabet.")
        }
        return .bcrypt(cost: cost)
    }

    // argon2: `$argon2id$v=19$m=65536,t=2,p=1$SALT$DIGEST`, salt and digest in unpadded base64.
    private static func parseArgon2(_ hash: String) throws(Refusal) -> StoredPasswordHash {
        let parts = hash.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].isEmpty, let variant = Argon2Variant(rawValue: String(parts[1])) else {
            throw Refusal(message: "The argon2 hash is malformed: expected $argon2id$v=19$m=…,t=…,p=…$salt$hash.")
        }
        guard parts[2] == "v=19" else { throw Refusal(message: "The argon2 hash is not version 19 (v=19).") }
        var parameters: [Substring: Int] = [:]
        for pair in parts[3].split(separator: ",", omittingEmptySubsequences: false) {
            let keyValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard keyValue.count == 2, ["m", "t", "p"].contains(keyValue[0]), parameters[keyValue[0]] == nil,
                (1...10).contains(keyValue[1].count), keyValue[1].allSatisfy(\.isASCIIDigit),
                let value = Int(keyValue[1])
            else {
                throw Refusal(message: "The argon2 hash's parameters are malformed: expected m=…,t=…,p=….")
            }
            parameters[keyValue[0]] = value
        }
        guard let memory = parameters["m"], let iterations = parameters["t"], let lanes = parameters["p"] else {
            throw Refusal(message: "The argon2 hash's parameters are malformed: expected m=…,t=…,p=….")
        }
        guard Bounds.argon2MemoryKiB.contains(memory), Bounds.argon2Iterations.contains(iterations),
            Bounds.argon2Parallelism.contains(lanes), memory * iterations <= Bounds.argon2Work
        else {
            throw Refusal(
                message: "The argon2 parameters m=\(memory),t=\(iterations),p=\(lanes) are outside "
                    + "m ≤ \(Bounds.argon2MemoryKiB.upperBound) KiB, t ≤ \(Bounds.argon2Iterations.upperBound), "
                    + "p ≤ \(Bounds.argon2Parallelism.upperBound), m × t ≤ \(Bounds.argon2Work).")
        }
        // Salt 8–64 bytes and digest 16–64 bytes: 11–86 and 22–86 characters of unpadded base64.
        guard (11...86).contains(parts[4].count), (22...86).contains(parts[5].count),
            (parts[4] + parts[5]).unicodeScalars.allSatisfy(isStandardBase64)
        else {
            throw Refusal(message: "The argon2 hash's salt or digest is not unpadded base64 of a usable length.")
        }
        return .argon2(variant: variant, memoryKiB: memory, iterations: iterations, parallelism: lanes)
    }

    private static func isBcryptBase64(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "." || scalar == "/" || isAlphanumeric(scalar)
    }

    private static func isStandardBase64(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "+" || scalar == "/" || isAlphanumeric(scalar)
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
