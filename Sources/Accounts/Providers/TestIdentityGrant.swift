import Store

/// What a spent test-provider code was issued for (`TestIdentityProvider.redeem`): the person its
/// tokens name and the nonce its id_token carries.
public struct TestIdentityGrant: Sendable, Equatable {
    public var identity: TestIdentity
    public var nonce: String

    init(_ grant: TestCodeGrant) { (identity, nonce) = (TestIdentity(grant.identity), grant.nonce) }
}
