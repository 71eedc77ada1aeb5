import Secrets
import Store

/// Gatehouse's own database as a front-end holds it: opened by the executable (or a test) and
/// handed on to `Accounts` and the operations built from it, never read row by row outside this
/// module. Front-ends ask it only for the keys they sign with at start-up.
public struct AccountsDatabase: Sendable {
    let database: AppDatabase

    public init(_ database: AppDatabase) { self.database = database }

    /// The private signing key `name`, sealed at rest under `box` (`AppDatabase.signingKey`).
    public func signingKey(named name: String, sealedWith box: SecretBox) throws -> [UInt8] {
        try database.signingKey(named: name, sealedWith: box)
    }

    /// The random server secret `name`, made on first use (`AppDatabase.secretKey`).
    public func secretKey(named name: String) throws -> [UInt8] {
        try database.secretKey(named: name)
    }
}
