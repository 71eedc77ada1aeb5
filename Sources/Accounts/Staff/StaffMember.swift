import Foundation
import Store

/// A superuser as the console, the admin API and PocketBase's `_superusers` show them: who they
/// are, without their password hash.
public struct StaffMember: Sendable, Equatable {
    public var id: String
    public var email: String
    public var createdAt: Date
    public var updatedAt: Date
    /// For the password asked again (`StaffSignIn.reauthenticate`); never shown.
    let passwordHash: String

    init(_ row: SuperuserRecord) {
        id = row.id
        email = row.email
        createdAt = row.createdAt
        updatedAt = row.updatedAt
        passwordHash = row.passwordHash
    }
}
