import Foundation

/// The rules of a second step with an authenticator app, declared once for everyone who has one:
/// people (`LocalAccounts`) and superusers (`StaffSignIn`) read the same numbers, whatever tables
/// they keep their keys, codes and pending steps in.
public enum TOTPRules {
    /// How long a sign-in waits for its second step.
    public static let stepLifetime: TimeInterval = 5 * 60
    /// Tries per pending second step; after them the sign-in must start again.
    public static let triesPerStep = 5
    /// Wrong second steps per account in `failureWindow`, over all its sign-ins; beyond it a try
    /// answers like a wrong code (whoever knows the password cannot buy fresh guesses with new sign-ins).
    public static let wrongStepsPerAccount = 10
    /// The window `wrongStepsPerAccount` counts in: an hour.
    public static let failureWindow: TimeInterval = 3600
    /// How long a key shown for enrolment stays the one to confirm (reloading the page keeps it);
    /// after it a fresh key is shown.
    public static let pendingEnrollmentLifetime: TimeInterval = 15 * 60
    /// Recovery codes in a fresh set, each usable once.
    public static let recoveryCodeCount = 10
}
