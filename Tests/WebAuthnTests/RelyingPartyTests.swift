import Secrets
import SystemCrypto
import Testing
import WebAuthn
import WebAuthnTestSupport

/// WebAuthn Level 3 §16.2 ("ES256 Credential with No Attestation"): the specification's own
/// registration and assertion of one credential, for RP id `example.org`.
@Suite struct SpecificationVectorTests {
    static let rp = RelyingParty(id: "example.org", origins: ["https://example.org"])
    static let registrationChallenge = hex("00c30fb78531c464d2b6771dab8d7b603c01162f2fa486bea70f283ae556e130")
    static let registrationClientData = hex(
        "7b2274797065223a22776562617574686e2e637265617465222c226368616c6c656e6765223a2241"
            + "4d4d507434557878475453746e63647134313759447742466938767049612d7077386f4f75565734"
            + "5441222c226f726967696e223a2268747470733a2f2f6578616d706c652e6f7267222c2263726f73"
            + "734f726967696e223a66616c73652c22657874726144617461223a22636c69656e74446174614a53"
            + "4f4e206d617920626520657874656e6465642077697468206164646974696f6e616c206669656c64"
            + "7320696e20746865206675747572652c207375636820617320746869733a20426b5165446a646354"
            + "427258426941774a544c453551227d")
    static let attestationObject = hex(
        "a363666d74646e6f6e656761747453746d74a068617574684461746158a4bfabc37432958b063360"
            + "d3ad6461c9c4735ae7f8edd46592a5e0f01452b2e4b559000000008446ccb9ab1db374750b2367ff"
            + "6f3a1f0020f91f391db4c9b2fde0ea70189cba3fb63f579ba6122b33ad94ff3ec330084be4a50102"
            + "03262001215820afefa16f97ca9b2d23eb86ccb64098d20db90856062eb249c33a9b672f26df6122"
            + "5820930a56b87a2fca66334b03458abf879717c12cc68ed73290af2e2664796b9220")
    static let credentialID = hex("f91f391db4c9b2fde0ea70189cba3fb63f579ba6122b33ad94ff3ec330084be4")
    static let assertionChallenge = hex("39c0e7521417ba54d43e8dc95174f423dee9bf3cd804ff6d65c857c9abf4d408")
    static let authenticatorData = hex("bfabc37432958b063360d3ad6461c9c4735ae7f8edd46592a5e0f01452b2e4b51900000000")
    static let assertionClientData = hex(
        "7b2274797065223a22776562617574686e2e676574222c226368616c6c656e6765223a224f63446e"
            + "55685158756c5455506f334a5558543049393770767a7a59425039745a6368587961763031416722"
            + "2c226f726967696e223a2268747470733a2f2f6578616d706c652e6f7267222c2263726f73734f72"
            + "6967696e223a66616c73657d")
    static let signature = hex(
        "3046022100f50a4e2e4409249c4a853ba361282f09841df4dd4547a13a87780218deffcd38022100"
            + "8480ac0f0b93538174f575bf11a1dd5d78c6e486013f937295ea13653e331e87")

    func register() throws -> RelyingParty.NewCredential {
        try Self.rp.verifyRegistration(
            clientDataJSON: Self.registrationClientData, attestationObject: Self.attestationObject,
            challenge: Self.registrationChallenge, userVerification: false)
    }

    @Test func theRegistrationVerifies() throws {
        let credential = try register()
        #expect(credential.id == Self.credentialID)
        #expect(credential.format == "none")
        #expect(credential.flags.backupEligible && credential.flags.backedUp && !credential.flags.userVerified)
        #expect(try COSEKey(bytes: credential.publicKeyCOSE).algorithm == .es256)
    }

    @Test func theAssertionVerifiesWithTheRegisteredKey() throws {
        let credential = try register()
        let assertion = try Self.rp.verifyAssertion(
            clientDataJSON: Self.assertionClientData, authenticatorData: Self.authenticatorData, signature: Self.signature,
            challenge: Self.assertionChallenge, publicKeyCOSE: credential.publicKeyCOSE, storedSignCount: 0,
            userVerification: false)
        #expect(assertion.signCount == 0)
    }

    @Test func oneFlippedBitOfTheSignatureIsRefused() throws {
        let credential = try register()
        var forged = Self.signature
        forged[forged.count - 1] ^= 1
        #expect(throws: WebAuthnError.badSignature) {
            try Self.rp.verifyAssertion(
                clientDataJSON: Self.assertionClientData, authenticatorData: Self.authenticatorData, signature: forged,
                challenge: Self.assertionChallenge, publicKeyCOSE: credential.publicKeyCOSE, storedSignCount: 0,
                userVerification: false)
        }
    }

    @Test func theVectorDidNotVerifyThePerson() throws {
        #expect(throws: WebAuthnError.userNotVerified) {
            try Self.rp.verifyRegistration(
                clientDataJSON: Self.registrationClientData, attestationObject: Self.attestationObject,
                challenge: Self.registrationChallenge, userVerification: true)
        }
    }
}

/// Each check of §7.1 and §7.2 with one thing changed from a good ceremony.
@Suite struct RelyingPartyTests {
    let rp = RelyingParty(id: "localhost", origins: ["http://localhost:8080"])
    let authenticator: SoftwareAuthenticator
    let challenge = Array(1...32).map(UInt8.init)

    init() throws { authenticator = try SoftwareAuthenticator() }

    func register(
        _ authenticator: SoftwareAuthenticator? = nil, format: String = "none", clientData: [UInt8]? = nil,
        challenge expected: [UInt8]? = nil, flags: UInt8? = nil
    ) throws(WebAuthnError) -> RelyingParty.NewCredential {
        let authenticator = authenticator ?? self.authenticator
        let clientData = clientData ?? authenticator.clientData(type: ClientData.create, challenge: challenge)
        let authData = authenticator.authenticatorData(attested: true, flags: flags)
        let object: [UInt8]
        do { object = try authenticator.attestationObject(authData: authData, clientData: clientData, format: format) } catch {
            throw .malformed("test setup")
        }
        return try rp.verifyRegistration(
            clientDataJSON: clientData, attestationObject: object, challenge: expected ?? challenge, userVerification: true)
    }

    func signIn(
        stored: RelyingParty.NewCredential, clientData: [UInt8]? = nil, flags: UInt8? = nil, signCount: UInt32 = 2,
        storedSignCount: UInt32 = 1, userVerification: Bool = true, tamper: ((inout [UInt8]) -> Void)? = nil
    ) throws -> RelyingParty.Assertion {
        let clientData = clientData ?? authenticator.clientData(type: ClientData.get, challenge: challenge)
        let authData = authenticator.authenticatorData(attested: false, flags: flags, signCount: signCount)
        let signature = try authenticator.derSignature(authData + (try SHA256.digest(clientData)))
        var sent = clientData
        tamper?(&sent)
        return try rp.verifyAssertion(
            clientDataJSON: sent, authenticatorData: authData, signature: signature, challenge: challenge,
            publicKeyCOSE: stored.publicKeyCOSE, storedSignCount: storedSignCount, userVerification: userVerification)
    }

    @Test func noneAndPackedSelfAttestationRegister() throws {
        #expect(try register().format == "none")
        #expect(try register(format: "packed").format == "packed")
    }

    @Test func otherAttestationFormatsAreRefused() throws {
        #expect(throws: WebAuthnError.unsupportedAttestation("the fido-u2f format")) { try register(format: "fido-u2f") }
    }

    @Test func aGoodAssertionVerifiesAndMovesTheCounter() throws {
        #expect(try signIn(stored: register()).signCount == 2)
    }

    @Test func tamperedClientDataIsRefused() throws {
        let stored = try register()
        #expect(throws: WebAuthnError.badSignature) {
            try signIn(stored: stored) { data in
                data.removeLast()
                data += Array(#","tampered":true}"#.utf8)
            }
        }
    }

    @Test func wrongOriginWrongCeremonyAndCrossOriginAreRefused() throws {
        let stored = try register()
        let evil = authenticator.clientData(type: ClientData.get, challenge: challenge, origin: "http://evil.test:8080")
        #expect(throws: WebAuthnError.originNotAllowed("http://evil.test:8080")) { try signIn(stored: stored, clientData: evil) }
        let create = authenticator.clientData(type: ClientData.create, challenge: challenge)
        #expect(throws: WebAuthnError.wrongCeremony(expected: "webauthn.get")) { try signIn(stored: stored, clientData: create) }
        let framed = authenticator.clientData(type: ClientData.get, challenge: challenge, crossOrigin: true)
        #expect(throws: WebAuthnError.crossOrigin) { try signIn(stored: stored, clientData: framed) }
    }

    @Test func anotherChallengeIsRefused() throws {
        #expect(throws: WebAuthnError.challengeMismatch) { try register(challenge: Array(repeating: 7, count: 32)) }
    }

    @Test func anotherRPIDIsRefused() throws {
        var other = authenticator
        other.rpID = "example.org"
        #expect(throws: WebAuthnError.rpIDMismatch) { try register(other) }
    }

    @Test func presenceAndVerificationAreRequired() throws {
        #expect(throws: WebAuthnError.userNotPresent) { try register(flags: 0x04) }
        #expect(throws: WebAuthnError.userNotVerified) { try register(flags: 0x01) }
        let stored = try register()
        #expect(throws: WebAuthnError.userNotVerified) { try signIn(stored: stored, flags: 0x01) }
        #expect(try signIn(stored: stored, flags: 0x01, userVerification: false).flags.userPresent)
    }

    @Test func aCounterThatDoesNotMoveForwardIsRefused() throws {
        let stored = try register()
        #expect(throws: WebAuthnError.signCountRegressed(stored: 5, received: 5)) {
            try signIn(stored: stored, signCount: 5, storedSignCount: 5)
        }
        #expect(throws: WebAuthnError.signCountRegressed(stored: 5, received: 3)) {
            try signIn(stored: stored, signCount: 3, storedSignCount: 5)
        }
        // Authenticators without a counter send 0 every time; a 0 after a moving counter is a clone's.
        #expect(try signIn(stored: stored, signCount: 0, storedSignCount: 0).signCount == 0)
        #expect(throws: WebAuthnError.signCountRegressed(stored: 5, received: 0)) {
            try signIn(stored: stored, signCount: 0, storedSignCount: 5)
        }
    }

    @Test func anotherCredentialsKeyDoesNotVerify() throws {
        let stored = try register()
        let other = try register(try SoftwareAuthenticator())
        #expect(throws: WebAuthnError.badSignature) {
            let clientData = authenticator.clientData(type: ClientData.get, challenge: challenge)
            let authData = authenticator.authenticatorData(attested: false, signCount: 2)
            _ = try rp.verifyAssertion(
                clientDataJSON: clientData, authenticatorData: authData,
                signature: try authenticator.derSignature(authData + (try SHA256.digest(clientData))), challenge: challenge,
                publicKeyCOSE: other.publicKeyCOSE, storedSignCount: stored.signCount, userVerification: true)
        }
    }

    @Test func aPackedStatementSignedByAnotherKeyIsRefused() throws {
        let clientData = authenticator.clientData(type: ClientData.create, challenge: challenge)
        let authData = authenticator.authenticatorData(attested: true)
        let forged = try SoftwareAuthenticator().attestationObject(authData: authData, clientData: clientData, format: "packed")
        #expect(throws: WebAuthnError.invalidAttestation("the self-attestation signature does not verify")) {
            try rp.verifyRegistration(
                clientDataJSON: clientData, attestationObject: forged, challenge: challenge, userVerification: true)
        }
    }

    @Test func authenticatorDataWithBytesLeftOverIsRefused() throws {
        #expect(throws: WebAuthnError.malformed("authenticator data has bytes left over")) {
            try AuthenticatorData(authenticator.authenticatorData(attested: false) + [0])
        }
        #expect(throws: WebAuthnError.malformed("authenticator data is shorter than 37 bytes")) {
            try AuthenticatorData([UInt8](repeating: 0, count: 36))
        }
    }

    @Test func aCredentialJSONFromTheBrowserDecodes() throws {
        let json =
            #"{"id":"AAEC","rawId":"AAEC","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AQ","userHandle":"dXNlcg"}}"#
        let response = try AssertionResponse(json: Array(json.utf8))
        #expect(response.id == [0, 1, 2])
        #expect(response.userHandle == Array("user".utf8))
        #expect(throws: WebAuthnError.malformed("the credential is not the expected JSON")) {
            try AssertionResponse(json: Array(#"{"id":"AAEC"}"#.utf8))
        }
    }
}
