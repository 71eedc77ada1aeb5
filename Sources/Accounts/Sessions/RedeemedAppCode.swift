import AuthCore
import Store

/// A hosted sign-in code an app traded in (`AppCodes.redeem`): the app, person and client type it
/// was issued for, and the callback it went to.
public struct RedeemedAppCode: Sendable, Equatable {
    var appID: String
    public var userID: UserID
    public var clientType: String
    public var callbackURL: String

    init(_ row: AppCodeRecord) {
        appID = row.appID
        userID = row.userID
        clientType = row.clientType
        callbackURL = row.callbackURL
    }
}
