import Foundation
import Secrets
public import SystemCrypto
public import WebAuthn

/// A CBOR writer for the tests' own authenticator (the server only reads CBOR).
public enum CBORWriter {
    public static func encode(_ value: CBOR) -> [UInt8] {
        switch value {
        case .unsigned(let n): head(0, n)
        case .negative(let n): head(1, n)
        case .bytes(let b): head(2, UInt64(b.count)) + b
        case .text(let t): head(3, UInt64(t.utf8.count)) + Array(t.utf8)
        case .array(let items): head(4, UInt64(items.count)) + items.flatMap(encode)
        case .map(let pairs): head(5, UInt64(pairs.count)) + pairs.flatMap { encode($0.key) + encode($0.value) }
        case .tagged(let tag, let item): head(6, tag) + encode(item)
        case .bool(let b): [b ? 0xF5 : 0xF4]
        case .null: [0xF6]
        case .undefined: [0xF7]
        case .simple(let s): s < 24 ? [0xE0 | s] : [0xF8, s]
        case .float(let d): [0xFB] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: d.bitPattern >> ($0 * 8)) }
        }
    }

    public static func head(_ major: UInt8, _ argument: UInt64) -> [UInt8] {
        let m = major << 5
        switch argument {
        case 0..<24: return [m | UInt8(argument)]
        case 24..<0x100: return [m | 24, UInt8(argument)]
        case 0x100..<0x10000: return [m | 25] + bigEndian(argument, 2)
        case 0x10000..<0x1_0000_0000: return [m | 26] + bigEndian(argument, 4)
        default: return [m | 27] + bigEndian(argument, 8)
        }
    }

    public static func bigEndian(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}

/// A P-256 software authenticator: makes the bytes a browser would hand the page, so each test
/// can change one thing and see it refused (WebAuthnTests), and answers the client core's passkey
/// ceremonies (ClientCoreTests).
public struct SoftwareAuthenticator: Sendable {
    public let key: P256.SigningKey
    /// The credential id; a test with two passkeys on one server gives each its own.
    public var credentialID: [UInt8] = Array(0..<16)
    public var rpID = "localhost"
    public var origin = "http://localhost:8080"
    public var flags: UInt8 = 0x05  // UP + UV
    public var signCount: UInt32 = 1
    /// The AAGUID it announces at registration (all zero, as many security keys send).
    public var aaguid = [UInt8](repeating: 0, count: 16)

    public init() throws { key = try P256.SigningKey() }

    public var coseKey: [UInt8] {
        CBORWriter.encode(
            .map([
                (CBOR(1), CBOR(2)), (CBOR(3), CBOR(-7)), (CBOR(-1), CBOR(1)),
                (CBOR(-2), .bytes(key.publicKey.x)), (CBOR(-3), .bytes(key.publicKey.y))
            ]))
    }

    public func clientData(type: String, challenge: [UInt8], origin: String? = nil, crossOrigin: Bool = false) -> [UInt8] {
        Array(
            #"{"type":"\#(type)","challenge":"\#(Base64URL.encode(challenge))","origin":"\#(origin ?? self.origin)","crossOrigin":\#(crossOrigin)}"#
                .utf8)
    }

    public func authenticatorData(attested: Bool, flags: UInt8? = nil, signCount: UInt32? = nil) -> [UInt8] {
        // A digest libcrypto cannot make leaves no RP id hash, and every ceremony then fails.
        var data = (try? SHA256.digest(Array(rpID.utf8))) ?? []
        data.append((flags ?? self.flags) | (attested ? 0x40 : 0))
        data += CBORWriter.bigEndian(UInt64(signCount ?? self.signCount), 4)
        if attested {
            data += aaguid + [0, UInt8(credentialID.count)] + credentialID + coseKey
        }
        return data
    }

    /// An attestation object: `none`, or `packed` self-attestation signed by the credential key.
    public func attestationObject(authData: [UInt8], clientData: [UInt8], format: String = "none") throws -> [UInt8] {
        var statement = CBOR.map([])
        if format == "packed" {
            let signature = try derSignature(authData + (try SHA256.digest(clientData)))
            statement = .map([(.text("alg"), CBOR(-7)), (.text("sig"), .bytes(signature))])
        }
        return CBORWriter.encode(
            .map([(.text("fmt"), .text(format)), (.text("attStmt"), statement), (.text("authData"), .bytes(authData))]))
    }

    /// `create()`'s answer to `challenge` as `RegistrationResponseJSON` text (`none` attestation).
    public func registrationJSON(challenge: [UInt8]) throws -> String {
        let clientData = clientData(type: "webauthn.create", challenge: challenge)
        let attestation = try attestationObject(authData: authenticatorData(attested: true), clientData: clientData)
        return try credentialJSON([
            "clientDataJSON": Base64URL.encode(clientData), "attestationObject": Base64URL.encode(attestation),
            "transports": ["internal"]
        ])
    }

    /// `get()`'s answer to `challenge` as `AuthenticationResponseJSON` text, with `userHandle` as
    /// given (DescopeKit sends the account id as text).
    public func assertionJSON(challenge: [UInt8], userHandle: String, signCount: UInt32) throws -> String {
        let clientData = clientData(type: "webauthn.get", challenge: challenge)
        let authData = authenticatorData(attested: false, signCount: signCount)
        return try credentialJSON([
            "clientDataJSON": Base64URL.encode(clientData), "authenticatorData": Base64URL.encode(authData),
            "signature": Base64URL.encode(try derSignature(authData + (try SHA256.digest(clientData)))), "userHandle": userHandle
        ])
    }

    private func credentialJSON(_ response: [String: Any]) throws -> String {
        let id = Base64URL.encode(credentialID)
        let credential: [String: Any] = ["id": id, "rawId": id, "type": "public-key", "response": response]
        return String(decoding: try JSONSerialization.data(withJSONObject: credential), as: UTF8.self)
    }

    public func derSignature(_ message: [UInt8]) throws -> [UInt8] {
        let raw = try key.signature(for: message)
        return derECDSA(r: Array(raw[0..<32]), s: Array(raw[32..<64]))
    }
}

/// r‖s as ASN.1 `SEQUENCE { INTEGER r, INTEGER s }`, as WebAuthn carries ES256 signatures.
public func derECDSA(r: [UInt8], s: [UInt8]) -> [UInt8] {
    func integer(_ bytes: [UInt8]) -> [UInt8] {
        var trimmed = Array(bytes.drop { $0 == 0 })
        if trimmed.first.map({ $0 >= 0x80 }) ?? true { trimmed.insert(0, at: 0) }
        return [0x02, UInt8(trimmed.count)] + trimmed
    }
    let body = integer(r) + integer(s)
    return [0x30, UInt8(body.count)] + body
}

public func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8)
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16) ?? 0
    }
}
