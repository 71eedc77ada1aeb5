import Accounts
import ArgumentParser
import Foundation

extension Serve {
    /// The webhook policy `--webhook-retry-delays` and `--webhook-any-host` ask for.
    static func webhookPolicy(retryDelays: String?, anyHost: Bool) throws -> WebhookPolicy {
        var policy = WebhookPolicy.standard
        policy.allowsAnyHost = anyHost
        if let retryDelays {
            let delays = retryDelays.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard !delays.isEmpty, delays.allSatisfy({ ($0 ?? -1) >= 0 && ($0 ?? 0) <= 86_400 }) else {
                throw ValidationError("--webhook-retry-delays takes seconds from 0 to 86400, comma-separated: 5,30,120.")
            }
            policy.retryDelays = delays.compactMap { $0 }
        }
        return policy
    }
}
