import Foundation
import Logging
import Secrets
import Store

/// Webhooks' parts as `Accounts` holds them: the store, the sealed secrets, the policy and the
/// delivery worker, which this value starts once at start-up to send what the outbox kept.
struct Webhooks: Sendable {
    let database: AppDatabase
    let secrets: WebhookSecrets
    let policy: WebhookPolicy
    let delivery: WebhookDelivery
    /// The built-in receiving bins' requests.
    let bins = WebhookBins()

    /// `box` seals the endpoints' secrets: a key from the key file.
    init(database: AppDatabase, box: SecretBox, policy: WebhookPolicy, clock: @escaping @Sendable () -> Date, logger: Logger) {
        let secrets = WebhookSecrets(box: box, clock: clock)
        (self.database, self.secrets, self.policy) = (database, secrets, policy)
        delivery = WebhookDelivery(database: database, secrets: secrets, policy: policy, logger: logger)
        let delivery = delivery
        Task { await delivery.nudge() }
    }
}
