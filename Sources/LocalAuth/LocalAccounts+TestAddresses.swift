import Secrets
import ServerSeam

extension LocalAccounts.Configuration {
    /// A new emailed code for `email`: 6 random digits, or `424242` for a reserved test address.
    func newCode(for email: String) -> String {
        if let testAddresses, testAddresses.reserves(email) { return TestAddresses.code }
        return SecureRandom.digits(6)
    }
}
