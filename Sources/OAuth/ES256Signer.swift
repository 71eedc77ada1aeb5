import AuthCore
import Foundation
import Secrets
import SystemCrypto

/// Signs compact ES256 JWTs (RFC 7515/7518) with one P-256 key and publishes it as a JWKS; the
/// built-in test provider's id_tokens and access tokens. Only Gatehouse's own tokens are read back.
public struct ES256Signer: Sendable {
    private let key: P256.SigningKey
    /// RFC 7638 thumbprint of the public key, so a new key gets a new `kid`, after `keyIDPrefix`.
    public let keyID: String
    /// The encoded JOSE header of a token without extra header fields: the same for every one.
    private let plainHeader: String

    /// From the 32 raw bytes of a private scalar (as kept in the `secrets` table). `keyIDPrefix`
    /// starts the `kid` (SuperTokens' SDKs tell a dynamic key, `d-`, from a static one, `s-`).
    public init(rawPrivateKey: [UInt8], keyIDPrefix: String = "") throws {
        key = try P256.SigningKey(rawScalar: rawPrivateKey)
        let jwk = JSONWebKey(p256: key.publicKey, kid: "")
        let thumbprint = #"{"crv":"P-256","kty":"EC","x":"\#(jwk.x ?? "")","y":"\#(jwk.y ?? "")"}"#
        keyID = keyIDPrefix + Base64URL.encode(try SHA256.digest(thumbprint.utf8))
        plainHeader = Self.header(keyID: keyID, extra: [:])
    }

    public var jwks: JSONWebKeySet { JSONWebKeySet(keys: [JSONWebKey(p256: key.publicKey, kid: keyID)]) }

    /// `header` adds fields to the JOSE header (SuperTokens' access tokens carry `version`).
    public func sign(_ claims: [String: JSONValue], header extra: [String: JSONValue] = [:]) throws -> String {
        // `JSONValue`'s own writer, byte for byte `JSONEncoder`'s with sorted keys, at a fraction of
        // its cost (it was most of a Descope `refresh`).
        try sign(
            payload: JSONValue.object(claims).serialized,
            header: extra.isEmpty ? plainHeader : Self.header(keyID: keyID, extra: extra))
    }

    /// A token whose claims are already JSON text (`payload`, e.g. from `JSONObjectWriter`, for a
    /// token made on every call), under the plain header.
    public func sign(payload: [UInt8]) throws -> String {
        try sign(payload: payload, header: plainHeader)
    }

    private func sign(payload: [UInt8], header: String) throws -> String {
        var token = Array(header.utf8)
        // ".", the claims in base64url, ".", and the 64-byte `r ‖ s` signature's 86 characters.
        token.reserveCapacity(token.count + 1 + (payload.count * 4 + 2) / 3 + 1 + 86)
        token.append(UInt8(ascii: "."))
        Base64URL.encode(payload, appendingTo: &token)
        let signature = LowS.lowered(try key.signature(for: token))
        token.append(UInt8(ascii: "."))
        Base64URL.encode(signature, appendingTo: &token)
        return String(decoding: token, as: UTF8.self)
    }

    /// The encoded JOSE header: `extra`'s fields beside `alg`, `kid` and `typ`, which win.
    private static func header(keyID: String, extra: [String: JSONValue]) -> String {
        let fields = extra.merging(["alg": .string("ES256"), "kid": .string(keyID), "typ": .string("JWT")]) { _, own in own }
        return Base64URL.encode(JSONValue.object(fields).serialized)
    }

    /// The claims of a token this signer made, when the signature holds; nil otherwise (no claim
    /// checks). Read strictly (`CompactJWS`): the one spelling this signer writes.
    public func claims(of token: String) -> [String: JSONValue]? {
        guard let jws = CompactJWS(token),
            let fields = try? JSONDecoder().decode([String: JSONValue].self, from: Data(jws.header)),
            fields["alg"]?.stringValue == "ES256", fields["kid"]?.stringValue == keyID, LowS.isLow(jws.signature),
            key.publicKey.isValidSignature(rawRS: jws.signature, for: jws.signingInput)
        else { return nil }
        return try? JSONDecoder().decode([String: JSONValue].self, from: Data(jws.payload))
    }
}
