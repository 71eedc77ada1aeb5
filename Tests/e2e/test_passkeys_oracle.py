"""Passkeys through the HTTP endpoints the hosted pages use, with a software authenticator built on
PyPI `fido2` (its CBOR, COSE and authenticator-data encoders; keys and signatures from
`cryptography`) — an implementation Gatehouse shares no code with. Good registrations and
assertions verify; each way a ceremony can be wrong is refused with its own clear message; the
console lists a user's passkey and deletes it.
An expired challenge (6 minutes) is checked in the Swift suite (`PasskeyStoreTests`)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from fido2 import cbor
from fido2.cose import ES256, RS256
from fido2.utils import websafe_decode, websafe_encode
from fido2.webauthn import (AttestationObject, AttestedCredentialData, AuthenticatorData, CollectedClientData)

from conftest import PASSWORD, Browserless, create_superuser, latest_code, read_mailbox, unique_email

UP, UV, AT = AuthenticatorData.FLAG.UP, AuthenticatorData.FLAG.UV, AuthenticatorData.FLAG.AT


class SoftwareAuthenticator:
    """One ES256 (or, with `rs256`, RS256) credential, discoverable: it keeps the user handle it was made for."""

    def __init__(self, rp_id: str = "localhost", rs256: bool = False):
        self.rs256 = rs256
        self.key = rsa.generate_private_key(65537, 2048) if rs256 else ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(32)
        self.rp_id = rp_id
        self.counter = 0
        self.user_handle = b""

    def create(self, options: dict, origin: str, fmt: str = "none", rp_id: str | None = None,
               handle_as_text: bool = False) -> dict:
        """`handle_as_text`: the user id taken as text, as DescopeKit does (`Data(user.id.utf8)`)."""
        user_id = options["user"]["id"]
        self.user_handle = user_id.encode() if handle_as_text else websafe_decode(user_id)
        client_data = CollectedClientData.create(
            CollectedClientData.TYPE.CREATE, websafe_decode(options["challenge"]), origin)
        cose = RS256 if self.rs256 else ES256
        credential = AttestedCredentialData.create(
            b"\0" * 16, self.credential_id, cose.from_cryptography_key(self.key.public_key()))
        self.counter += 1
        auth_data = AuthenticatorData.create(
            hashlib.sha256((rp_id or self.rp_id).encode()).digest(), UP | UV | AT, self.counter, credential)
        statement = {}
        if fmt == "packed":
            statement = {"alg": cose.ALGORITHM, "sig": self.sign(bytes(auth_data) + client_data.hash)}
        attestation = AttestationObject.create(fmt, auth_data, statement)
        return {
            "id": websafe_encode(self.credential_id), "rawId": websafe_encode(self.credential_id), "type": "public-key",
            "response": {"clientDataJSON": websafe_encode(bytes(client_data)),
                         "attestationObject": websafe_encode(bytes(attestation)), "transports": ["internal"]},
        }

    def get(self, options: dict, origin: str, flags=UP | UV, counter: int | None = None, rp_id: str | None = None,
            client_data: bytes | None = None, handle_as_text: bool = False) -> dict:
        data = client_data or bytes(CollectedClientData.create(
            CollectedClientData.TYPE.GET, websafe_decode(options["challenge"]), origin))
        self.counter = self.counter + 1 if counter is None else counter
        auth_data = bytes(AuthenticatorData.create(
            hashlib.sha256((rp_id or self.rp_id).encode()).digest(), flags, self.counter))
        signature = self.sign(auth_data + hashlib.sha256(data).digest())
        return {
            "id": websafe_encode(self.credential_id), "rawId": websafe_encode(self.credential_id), "type": "public-key",
            "response": {"clientDataJSON": websafe_encode(data), "authenticatorData": websafe_encode(auth_data),
                         "signature": websafe_encode(signature),
                         "userHandle": self.user_handle.decode() if handle_as_text else websafe_encode(self.user_handle)},
        }


    def sign(self, data: bytes) -> bytes:
        if self.rs256:
            return self.key.sign(data, padding.PKCS1v15(), hashes.SHA256())
        return self.key.sign(data, ec.ECDSA(hashes.SHA256()))


@pytest.fixture
def site(server):
    """The server as a browser reaches it by name (WebAuthn takes no IP address as an RP id)."""
    return server.url.replace("127.0.0.1", "localhost")


def signed_up(site: str) -> tuple[Browserless, str]:
    client = Browserless(site)
    email = unique_email("passkey")
    status, headers, _ = client.form_post("/auth/sign-up", "/auth/sign-up",
                                          {"email": email, "password": PASSWORD, "name": "Ada"})
    assert status == 303, f"sign-up answered {status}"
    status, headers, _ = client.form_post(headers["Location"], "/auth/verify", {"email": email, "code": latest_code(site, email)})
    assert status == 303 and headers["Location"].startswith("/account"), f"verify answered {status}"
    return client, email


def call(client: Browserless, page: str, path: str, fields: dict) -> tuple[int, dict]:
    status, _, body = client.form_post(page, path, fields)
    return status, json.loads(body)


def register(client: Browserless, site: str, authenticator: SoftwareAuthenticator, **create) -> tuple[int, dict]:
    status, options = call(client, "/account/security", "/account/security/passkeys/options", {})
    assert status == 200, options
    credential = authenticator.create(options["publicKey"], site, **create)
    return call(client, "/account/security", "/account/security/passkeys",
                {"credential": json.dumps(credential), "name": "Test key"})


def sign_in_options(client: Browserless, email: str | None = None) -> dict:
    status, options = call(client, "/auth/sign-in", "/auth/passkey/options", {"email": email} if email else {})
    assert status == 200, options
    return options["publicKey"]


def sign_in(client: Browserless, credential: dict) -> tuple[int, dict]:
    return call(client, "/auth/sign-in", "/auth/passkey/sign-in", {"credential": json.dumps(credential)})


def test_registration_and_sign_in_made_by_fido2_verify(site):
    owner, email = signed_up(site)
    authenticator = SoftwareAuthenticator()
    status, answer = register(owner, site, authenticator, fmt="packed")
    assert status == 200 and answer["redirect"].startswith("/account/security"), answer
    status, _, page = owner.get("/account/security")
    assert "Test key" in page

    # With the email, and with none (the authenticator names the account by its user handle).
    for email_given in (email, None):
        visitor = Browserless(site)
        options = sign_in_options(visitor, email_given)
        assert options["rpId"] == "localhost" and options["userVerification"] == "required"
        assert options["allowCredentials"] == []
        status, answer = sign_in(visitor, authenticator.get(options, site))
        assert status == 200 and answer["redirect"] == "/account", answer
        status, _, page = visitor.get("/account")
        assert status == 200 and email in page, "the passkey sign-in did not open a session"


def test_an_rs256_credential_registers_and_signs_in(site):
    owner, email = signed_up(site)
    authenticator = SoftwareAuthenticator(rs256=True)
    status, answer = register(owner, site, authenticator, fmt="packed")
    assert status == 200, answer
    visitor = Browserless(site)
    status, answer = sign_in(visitor, authenticator.get(sign_in_options(visitor), site))
    assert status == 200 and answer["redirect"] == "/account", answer
    assert email in visitor.get("/account")[2]
    # A signature by another RSA key is refused.
    authenticator.key = rsa.generate_private_key(65537, 2048)
    stranger = Browserless(site)
    status, answer = sign_in(stranger, authenticator.get(sign_in_options(stranger), site))
    assert status == 400 and "signature" in answer["message"].lower(), answer


def test_passkey_sign_up_is_bound_to_its_address_and_account_id(site):
    """A passkey-only sign-up's challenge names the address and the account id it was issued for:
    another address or id at the finish is refused (and makes no account); the right one makes an
    account with no password, verified by mail like a password sign-up."""
    email = unique_email("passkey-only")

    def start(client: Browserless) -> dict:
        status, options = call(client, "/auth/sign-up", "/auth/sign-up/passkey/options", {"email": email, "name": "Pat"})
        assert status == 200 and options["publicKey"]["user"]["name"] == email, options
        return options

    def finish(client: Browserless, options: dict, **override) -> tuple[int, dict]:
        credential = SoftwareAuthenticator().create(options["publicKey"], site)
        fields = {"email": email, "name": "Pat", "user": options["user"], "credential": json.dumps(credential)}
        return call(client, "/auth/sign-up", "/auth/sign-up/passkey", {**fields, **override})

    client = Browserless(site)
    status, answer = finish(client, start(client), email=unique_email("someone-else"))
    assert status == 400 and answer["error"] == "unknown_challenge", answer
    status, answer = finish(client, start(client), user="a" * 15)
    assert status == 400 and answer["error"] == "unknown_challenge", answer
    assert read_mailbox(site, email) == [], "a refused passkey sign-up mailed a verification"

    options = start(client)
    status, answer = finish(client, options)
    assert status == 200 and answer["redirect"].startswith("/auth/verify"), answer
    status, headers, _ = client.form_post(answer["redirect"], "/auth/verify", {"email": email, "code": latest_code(site, email)})
    assert status == 303 and headers["Location"].startswith("/account"), status
    # The account has no password: the security tab offers to set one, asking no current one.
    status, _, page = client.get("/account/security")
    assert "Set a password" in page and 'name="current_password"' not in page


def test_an_expired_challenge_is_refused(start_server):
    server = start_server(extra_args=["--passkey-challenge-lifetime", "1"])
    site = server.url.replace("127.0.0.1", "localhost")
    visitor = Browserless(site)
    options = sign_in_options(visitor)
    time.sleep(1.2)
    status, answer = sign_in(visitor, SoftwareAuthenticator().get(options, site))
    assert status == 400 and answer["error"] == "expired_challenge" and "expired" in answer["message"], answer


def test_unknown_and_known_emails_get_alike_options(site):
    _, email = signed_up(site)
    visitor = Browserless(site)
    known, unknown = sign_in_options(visitor, email), sign_in_options(visitor, unique_email("nobody"))
    assert set(known) == set(unknown) and known["allowCredentials"] == unknown["allowCredentials"] == []
    assert len(websafe_decode(known["challenge"])) == len(websafe_decode(unknown["challenge"])) == 32


def test_each_wrong_ceremony_is_refused_with_its_reason(site):
    owner, email = signed_up(site)
    authenticator = SoftwareAuthenticator()
    assert register(owner, site, authenticator)[0] == 200
    visitor = Browserless(site)

    def refused(credential: dict, reason: str, message: str) -> None:
        status, answer = sign_in(visitor, credential)
        assert status >= 400 and reason in answer["error"], answer
        assert message in answer["message"], answer
        status, _, _ = visitor.get("/account")
        assert status == 303, "a refused passkey still opened a session"

    # Tampered client data: still well-formed and for this challenge and origin, but not what was signed.
    credential = authenticator.get(sign_in_options(visitor), site)
    raw = websafe_decode(credential["response"]["clientDataJSON"])
    credential["response"]["clientDataJSON"] = websafe_encode(raw[:-1] + b',"tampered":true}')
    refused(credential, "bad_signature", "signature does not verify")
    # Client data whose origin was changed after signing.
    credential = authenticator.get(sign_in_options(visitor), site)
    raw = websafe_decode(credential["response"]["clientDataJSON"])
    credential["response"]["clientDataJSON"] = websafe_encode(raw.replace(b"localhost", b"evil.test"))
    refused(credential, "origin_not_allowed", "evil.test")
    # Wrong origin, signed as such by the authenticator.
    refused(authenticator.get(sign_in_options(visitor), "http://evil.example"), "origin_not_allowed", "evil.example")
    # Wrong RP id.
    refused(authenticator.get(sign_in_options(visitor), site, rp_id="example.org"), "rp_id_mismatch", "another site")
    # UV missing (required on every ceremony).
    refused(authenticator.get(sign_in_options(visitor), site, flags=UP), "user_not_verified", "did not verify you")
    # A replayed challenge: the same answer twice.
    options = sign_in_options(visitor)
    once = authenticator.get(options, site)
    assert sign_in(Browserless(site), once)[0] == 200
    refused(once, "unknown_challenge", "already used")
    # Sign-count regression.
    refused(authenticator.get(sign_in_options(visitor), site, counter=1), "sign_count_regressed", "counter went backwards")
    # An unknown credential.
    refused(SoftwareAuthenticator().get(sign_in_options(visitor), site), "unknown_credential", "not registered")
    # Another account's credential, against a challenge issued for this email.
    other, _ = signed_up(site)
    other_authenticator = SoftwareAuthenticator()
    assert register(other, site, other_authenticator)[0] == 200
    refused(other_authenticator.get(sign_in_options(visitor, email), site), "other_account", "another account")


STAFF_EMAIL, STAFF_PASSWORD = "staff@example.com", "staff password 1"


def test_console_lists_a_users_passkey_and_deletes_it(start_server, binary, tmp_path):
    db = tmp_path / "console.sqlite"
    create_superuser(binary, db, STAFF_EMAIL, STAFF_PASSWORD)
    site = start_server(db_path=db).url.replace("127.0.0.1", "localhost")
    owner, email = signed_up(site)
    authenticator = SoftwareAuthenticator()
    assert register(owner, site, authenticator)[0] == 200

    staff = Browserless(site)
    status, headers, _ = staff.form_post("/_/", "/_/", {"email": STAFF_EMAIL, "password": STAFF_PASSWORD})
    assert status == 303, f"console sign-in answered {status}"
    _, _, listing = staff.get("/_/users?" + urllib.parse.urlencode({"q": email}))
    user_page = re.search(r'href="(/_/users/[a-z0-9]+)"', listing).group(1)
    _, _, page = staff.get(user_page)
    assert "Test key" in page and "last used never" in page and "internal" in page
    delete = re.search(r'action="(/_/users/[a-z0-9]+/passkeys/\d+/delete)"', page).group(1)
    status, headers, _ = staff.form_post(user_page, delete, {})
    assert status == 303, f"deleting answered {status}"
    _, _, page = staff.get(headers["Location"])
    assert "The user can no longer sign in with it" in page and "No passkeys." in page
    _, _, audit = staff.get("/_/audit")
    assert "Passkey deleted by staff" in audit

    status, answer = sign_in(Browserless(site), authenticator.get(sign_in_options(Browserless(site)), site))
    assert status == 401 and answer["error"] == "unknown_credential", answer


DESCOPE_PROJECT = "P2descopeGatehousePasskey01"


def descope_call(site: str, path: str, body: dict | None, refresh_jwt: str | None = None,
                 method: str = "POST") -> tuple[int, dict]:
    """One raw call as DescopeKit makes it: the project (and refresh JWT) in the bearer."""
    auth = DESCOPE_PROJECT + (f":{refresh_jwt}" if refresh_jwt else "")
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(site + path, data=data, method=method,
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {auth}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def test_descope_webauthn_routes_with_descopekits_shapes(start_server):
    site = start_server(extra_args=["--descope-project-id", DESCOPE_PROJECT]).url.replace("127.0.0.1", "localhost")
    email = unique_email("descope-passkey")
    status, up = descope_call(site, "/v1/auth/password/signup", {"loginId": email, "password": PASSWORD})
    assert status == 200, up
    refresh = up["refreshJwt"]

    # No passkeys yet, and no account at all, answer alike.
    for login_id in (email, unique_email("nobody")):
        status, body = descope_call(site, "/v1/auth/webauthn/signin/start", {"loginId": login_id, "origin": site})
        assert status == 400 and body["errorCode"] == "E067010", body

    # update: add a passkey to the signed-in account.
    status, start = descope_call(site, "/v1/auth/webauthn/update/start", {"loginId": email, "origin": site}, refresh)
    assert status == 200 and start["create"] is True, start
    options = json.loads(start["options"])["publicKey"]
    assert options["user"]["id"] == up["user"]["userId"], "DescopeKit takes user.id as text"
    authenticator = SoftwareAuthenticator()
    credential = authenticator.create(options, site, handle_as_text=True)
    status, body = descope_call(site, "/v1/auth/webauthn/update/finish",
                                {"transactionId": start["transactionId"], "response": json.dumps(credential)}, refresh)
    assert status == 200, body

    # signin: start and finish answer with Descope's JWTResponse.
    status, start = descope_call(site, "/v1/auth/webauthn/signin/start", {"loginId": email, "origin": site})
    assert status == 200 and start["create"] is False, start
    assertion = authenticator.get(json.loads(start["options"])["publicKey"], site, handle_as_text=True)
    status, signed_in = descope_call(site, "/v1/auth/webauthn/signin/finish",
                                     {"transactionId": start["transactionId"], "response": json.dumps(assertion)})
    assert status == 200 and signed_in["sessionJwt"] and signed_in["refreshJwt"], signed_in
    assert signed_in["user"]["userId"] == up["user"]["userId"] and signed_in["firstSeen"] is False
    # The session began with a passkey, so its answers say the account has one; the password
    # session's answers did not know.
    assert signed_in["user"]["webauthn"] is True and up["user"]["webauthn"] is False, (signed_in["user"], up["user"])
    status, me = descope_call(site, "/v1/auth/me", None, signed_in["refreshJwt"], method="GET")
    assert status == 200 and me["webauthn"] is True and me["password"] is False, me

    # The same answer again is a replay; another origin is refused at start.
    status, body = descope_call(site, "/v1/auth/webauthn/signin/finish",
                                {"transactionId": start["transactionId"], "response": json.dumps(assertion)})
    assert status == 400 and "already used" in body["errorMessage"], body
    status, body = descope_call(site, "/v1/auth/webauthn/signin/start", {"loginId": email, "origin": "https://evil.example"})
    assert status == 400 and body["errorCode"] == "E011004", body

    # signup: a passkey-only account, JWTs at once (the address still to verify, as password/signup).
    new_email = unique_email("descope-passkey-only")
    status, start = descope_call(site, "/v1/auth/webauthn/signup/start",
                                 {"loginId": new_email, "user": {"name": "Pat"}, "origin": site})
    assert status == 200 and start["create"] is True, start
    options = json.loads(start["options"])["publicKey"]
    newcomer = SoftwareAuthenticator()
    credential = newcomer.create(options, site, handle_as_text=True)
    forged = start["transactionId"].split(".")
    forged[2] = websafe_encode(unique_email("someone-else").encode())
    status, body = descope_call(site, "/v1/auth/webauthn/signup/finish",
                                {"transactionId": ".".join(forged), "response": json.dumps(credential)})
    assert status == 400 and "unknown" in body["errorMessage"], body
    status, start = descope_call(site, "/v1/auth/webauthn/signup/start", {"loginId": new_email, "origin": site})
    credential = newcomer.create(json.loads(start["options"])["publicKey"], site, handle_as_text=True)
    status, signed_up = descope_call(site, "/v1/auth/webauthn/signup/finish",
                                     {"transactionId": start["transactionId"], "response": json.dumps(credential)})
    assert status == 200 and signed_up["firstSeen"] is True and signed_up["user"]["email"] == new_email, signed_up
    assert signed_up["user"]["password"] is False and signed_up["user"]["webauthn"] is True, signed_up["user"]
    status, start = descope_call(site, "/v1/auth/webauthn/signin/start", {"loginId": new_email, "origin": site})
    assertion = newcomer.get(json.loads(start["options"])["publicKey"], site, handle_as_text=True)
    status, body = descope_call(site, "/v1/auth/webauthn/signin/finish",
                                {"transactionId": start["transactionId"], "response": json.dumps(assertion)})
    assert status == 200 and body["user"]["userId"] == signed_up["user"]["userId"], body


def stored_challenges(db) -> str:
    """How many ceremony challenges the server's file holds, read by the sqlite3 shell."""
    counted = subprocess.run(["sqlite3", str(db), "SELECT count(*) FROM passkey_challenges"],
                             capture_output=True, text=True, timeout=30)
    assert counted.returncode == 0, counted.stderr
    return counted.stdout


def test_passkey_starts_are_budgeted_per_address(start_server):
    """Every passkey start stores a challenge, so one address gets 60 in 5 minutes over the pages, the
    console and Descope's API together (README "Defaults and limits"); the next is refused with 429 and
    Retry-After through each of them, for a known address and an unknown one alike, and stores nothing."""
    server = start_server(extra_args=["--descope-project-id", DESCOPE_PROJECT])
    site = server.url.replace("127.0.0.1", "localhost")

    _, email = signed_up(site)
    visitor = Browserless(site)
    for index in range(20):
        sign_in_options(visitor, email if index % 2 else unique_email("nobody"))
        status, options = call(visitor, "/auth/sign-up", "/auth/sign-up/passkey/options",
                               {"email": unique_email("new"), "name": "Pat"})
        assert status == 200, options
        status, _, body = visitor.form_post("/_/", "/_/passkey/options", {})
        assert status == 200, body
    stored = stored_challenges(server.db_path)

    for page, path, fields in [("/auth/sign-in", "/auth/passkey/options", {"email": email}),
                               ("/auth/sign-in", "/auth/passkey/options", {"email": unique_email("nobody")}),
                               ("/auth/sign-up", "/auth/sign-up/passkey/options", {"email": unique_email("new")}),
                               ("/_/", "/_/passkey/options", {})]:
        status, headers, body = visitor.form_post(page, path, fields)
        answer = json.loads(body)
        assert status == 429 and answer["error"] == "rate_limited" and "Try again in" in answer["message"], (path, body)
        assert int(headers["Retry-After"]) > 0, path
    for login_id in (email, unique_email("nobody")):
        status, body = descope_call(site, "/v1/auth/webauthn/signin/start", {"loginId": login_id, "origin": site})
        assert status == 429 and body["errorCode"] == "E130429", body
    status, body = descope_call(site, "/v1/auth/webauthn/signup/start", {"loginId": unique_email("new"), "origin": site})
    assert status == 429 and body["errorCode"] == "E130429", body
    assert stored_challenges(server.db_path) == stored, "a refused start stored a challenge"


def test_adding_a_passkey_spends_the_same_starts(start_server, binary, tmp_path):
    """Asking for options to add a passkey stores a challenge too: a signed-in person (pages, Descope's
    `webauthn/update/start`) and a superuser (console) spend the address's 60 starts like a sign-in, so
    a session is no licence to fill the table; the 61st start of any kind is refused and stores nothing."""
    db = tmp_path / "budget.sqlite"
    create_superuser(binary, db, STAFF_EMAIL, STAFF_PASSWORD)
    server = start_server(db_path=db, extra_args=["--descope-project-id", DESCOPE_PROJECT])
    site = server.url.replace("127.0.0.1", "localhost")
    owner, _ = signed_up(site)
    staff = Browserless(site)
    status, _, _ = staff.form_post("/_/", "/_/", {"email": STAFF_EMAIL, "password": STAFF_PASSWORD})
    assert status == 303, f"console sign-in answered {status}"
    descope_email = unique_email("descope-adder")
    status, up = descope_call(site, "/v1/auth/password/signup", {"loginId": descope_email, "password": PASSWORD})
    assert status == 200, up
    add_on_descope = {"loginId": descope_email, "origin": site}

    for _ in range(20):
        status, options = call(owner, "/account/security", "/account/security/passkeys/options", {})
        assert status == 200, options
        status, options = call(staff, "/_/security", "/_/security/passkeys/options", {})
        assert status == 200, options
        status, start = descope_call(site, "/v1/auth/webauthn/update/start", add_on_descope, up["refreshJwt"])
        assert status == 200, start
    stored = stored_challenges(db)

    for client, page, path in [(owner, "/account/security", "/account/security/passkeys/options"),
                               (staff, "/_/security", "/_/security/passkeys/options"),
                               (Browserless(site), "/auth/sign-in", "/auth/passkey/options")]:
        status, headers, body = client.form_post(page, path, {})
        answer = json.loads(body)
        assert status == 429 and answer["error"] == "rate_limited" and "Try again in" in answer["message"], (path, body)
        assert int(headers["Retry-After"]) > 0, path
    status, body = descope_call(site, "/v1/auth/webauthn/update/start", add_on_descope, up["refreshJwt"])
    assert status == 429 and body["errorCode"] == "E130429", body
    assert stored_challenges(db) == stored, "a refused start stored a challenge"


def test_adding_a_passkey_needs_a_recent_sign_in_on_the_pages(start_server, tmp_path):
    """A session is the only proof behind a new passkey, so on the pages it must be a recent sign-in
    (15 minutes): a browser left signed in, or a taken cookie, cannot give itself a way in that outlives
    it. Descope's `webauthn/update` takes its refresh JWT of any age as the proof, as Descope does."""
    db = tmp_path / "fresh.sqlite"
    server = start_server(db_path=db, extra_args=["--descope-project-id", DESCOPE_PROJECT])
    site = server.url.replace("127.0.0.1", "localhost")
    owner, _ = signed_up(site)
    descope_email = unique_email("descope-aged")
    status, up = descope_call(site, "/v1/auth/password/signup", {"loginId": descope_email, "password": PASSWORD})
    assert status == 200, up
    status, options = call(owner, "/account/security", "/account/security/passkeys/options", {})
    assert status == 200, "a fresh sign-in adds a passkey"

    aged = subprocess.run(["sqlite3", str(db), "UPDATE sessions SET created_at = strftime('%Y-%m-%d %H:%M:%f', 'now', '-20 minutes')"],
                          capture_output=True, text=True, timeout=30)
    assert aged.returncode == 0, aged.stderr
    status, _, page = owner.get("/account/security")
    assert status == 200 and "To add a passkey, sign in again first" in page and "data-passkey-create" not in page
    status, answer = call(owner, "/account/security", "/account/security/passkeys/options", {})
    assert status == 403 and answer["error"] == "fresh_sign_in_required", answer
    # Finishing with a credential made for the fresh options is refused too, and nothing is stored.
    credential = SoftwareAuthenticator().create(options["publicKey"], site)
    status, answer = call(owner, "/account/security", "/account/security/passkeys",
                          {"credential": json.dumps(credential), "name": "Late key"})
    assert status == 403 and answer["error"] == "fresh_sign_in_required", answer
    stored = subprocess.run(["sqlite3", str(db), "SELECT count(*) FROM passkeys"], capture_output=True, text=True, timeout=30)
    assert stored.stdout.strip() == "0", stored.stdout

    status, start = descope_call(site, "/v1/auth/webauthn/update/start", {"loginId": descope_email, "origin": site},
                                 up["refreshJwt"])
    assert status == 200 and "transactionId" in start, start
