"""A superuser made by the release before issue 45 (commit 1317792: `Tests/Fixtures/superuser-1317792.*`,
made by `make_superuser_fixture.py` with that release's binary) signs in after the upgrade's migrations
with everything they had: the password still asks for the authenticator app, whose code completes the
sign-in; the recovery codes still work once each; the console passkey still signs in alone."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import shutil
import struct
import time
from pathlib import Path

from cryptography.hazmat.primitives import serialization

from conftest import Browserless, pb_call
from test_passkeys_oracle import SoftwareAuthenticator

FIXTURES = Path(__file__).resolve().parent.parent / "Fixtures"
KEPT = json.loads((FIXTURES / "superuser-1317792.json").read_text())


def totp(secret: str) -> str:
    """RFC 6238, written here rather than borrowed from Gatehouse."""
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    digest = hmac.new(key, struct.pack(">Q", int(time.time() // 30)), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return f"{(struct.unpack('>I', digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


def kept_passkey() -> SoftwareAuthenticator:
    authenticator = SoftwareAuthenticator()
    kept = KEPT["passkey"]
    authenticator.key = serialization.load_pem_private_key(kept["privateKeyPEM"].encode(), password=None)
    authenticator.credential_id = base64.urlsafe_b64decode(kept["credentialId"] + "==")
    authenticator.user_handle = base64.urlsafe_b64decode(kept["userHandle"] + "==")
    authenticator.counter = kept["counter"]
    return authenticator


def post_json(base: str, path: str, body: dict) -> tuple[int, dict]:
    try:
        return 200, pb_call(base, "POST", path, body=body)
    except Exception as error:  # urllib's HTTPError carries the answer
        return error.code, json.loads(error.read() or b"{}")


def test_a_superuser_from_the_last_release_signs_in_with_everything_they_had(start_server, tmp_path):
    db = tmp_path / "upgraded.sqlite"
    shutil.copy(FIXTURES / "superuser-1317792.sqlite", db)
    shutil.copy(FIXTURES / "superuser-1317792.sqlite.key", str(db) + ".key")
    server = start_server(db_path=db)
    site = server.url.replace("127.0.0.1", "localhost")
    email, password, codes = KEPT["email"], KEPT["password"], KEPT["recoveryCodes"]

    # The console's form: the password, then the authenticator's code.
    staff = Browserless(site)
    status, _, page = staff.form_post("/_/", "/_/", {"email": email, "password": password})
    assert status == 200 and "second-step" in page, f"the password alone answered {status}"
    assert staff.cookie("gh_console") is None, "the password alone opened the console"
    status, headers, _ = staff.form_post("/_/", "/_/second-step", {"code": totp(KEPT["totpSecret"])})
    assert status == 303 and staff.cookie("gh_console"), f"the authenticator's code answered {status}"

    # PocketBase's `_superusers`: the password asks for the second step; a recovery code completes it, once.
    path = "/api/collections/_superusers"
    status, pending = post_json(server.url, path + "/auth-with-password", {"identity": email, "password": password})
    assert status == 401 and pending.get("mfaId"), pending
    status, signed_in = post_json(server.url, path + "/auth-with-otp",
                                  {"otpId": pending["mfaId"], "mfaId": pending["mfaId"], "password": codes[0]})
    assert status == 200 and signed_in["record"]["email"] == email, signed_in
    status, again = post_json(server.url, "/_/api/auth", {"email": email, "password": password, "code": codes[0]})
    assert status == 401, f"a spent recovery code worked again: {again}"
    status, token = post_json(server.url, "/_/api/auth", {"email": email, "password": password, "code": codes[1]})
    assert status == 200 and token.get("token"), token

    # The console passkey signs in alone.
    visitor = Browserless(site)
    status, _, body = visitor.form_post("/_/", "/_/passkey/options", {})
    assert status == 200, body
    credential = kept_passkey().get(json.loads(body)["publicKey"], site)
    status, _, body = visitor.form_post("/_/", "/_/passkey/sign-in", {"credential": json.dumps(credential)})
    assert status == 200 and json.loads(body).get("redirect") and visitor.cookie("gh_console"), body
