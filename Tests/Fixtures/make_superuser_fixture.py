"""Makes `superuser-1317792.sqlite` (+ `.key`, + `.json`): a superuser as the release before issue 45
kept one — a password, an authenticator app with its recovery codes, a console passkey — made by that
release's own binary (`GATEHOUSE_BIN`, built at commit 1317792) through the console's forms.
The JSON holds what a test needs to sign in afterwards: the password, the TOTP key, the unused
recovery codes and the passkey's private key. Run once; the files are committed.

    GATEHOUSE_BIN=/path/to/gatehouse-at-1317792 python3 Tests/Fixtures/make_superuser_fixture.py"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "e2e"))

from cryptography.hazmat.primitives import serialization  # noqa: E402

from conftest import Browserless, GatehouseServer, create_superuser  # noqa: E402
from test_passkeys_oracle import SoftwareAuthenticator  # noqa: E402

EMAIL, PASSWORD = "root@example.com", "staff-password-1"


def totp(secret: str, at: float) -> str:
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    digest = hmac.new(key, struct.pack(">Q", int(at // 30)), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return f"{(struct.unpack('>I', digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


def main() -> None:
    binary = Path(os.environ["GATEHOUSE_BIN"])
    work = Path(tempfile.mkdtemp())
    db = work / "fixture.sqlite"
    create_superuser(binary, db, EMAIL, PASSWORD)
    server = GatehouseServer(binary, db).start()
    try:
        site = server.url.replace("127.0.0.1", "localhost")
        staff = Browserless(site)
        status, _, _ = staff.form_post("/_/", "/_/", {"email": EMAIL, "password": PASSWORD})
        assert status == 303, status
        status, _, page = staff.form_post("/_/security", "/_/security/totp/begin", {})
        secret = re.search(r'data-totp-secret="([A-Z2-7]+)"', page).group(1)
        status, _, page = staff.form_post("/_/security", "/_/security/totp/confirm", {"code": totp(secret, time.time())})
        codes = re.findall(r"<code data-recovery-code>([^<]+)</code>", page)
        assert len(codes) == 10, page
        authenticator = SoftwareAuthenticator()
        status, _, body = staff.form_post("/_/security", "/_/security/passkeys/options", {})
        credential = authenticator.create(json.loads(body)["publicKey"], site)
        status, _, body = staff.form_post("/_/security", "/_/security/passkeys",
                                          {"credential": json.dumps(credential), "name": "Fixture key"})
        assert status == 200 and "redirect" in json.loads(body), body
    finally:
        server.stop()
    target = HERE / "superuser-1317792.sqlite"
    target.unlink(missing_ok=True)
    # One compact file, the write-ahead log folded in.
    subprocess.run(["sqlite3", str(db), f"VACUUM INTO '{target}'"], check=True, timeout=60)
    shutil.copy(str(db) + ".key", str(target) + ".key")
    key = authenticator.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()).decode()
    (HERE / "superuser-1317792.json").write_text(json.dumps({
        "email": EMAIL, "password": PASSWORD, "totpSecret": secret, "recoveryCodes": codes,
        "passkey": {"credentialId": base64.urlsafe_b64encode(authenticator.credential_id).decode().rstrip("="),
                    "userHandle": base64.urlsafe_b64encode(authenticator.user_handle).decode().rstrip("="),
                    "counter": authenticator.counter, "privateKeyPEM": key},
    }, indent=2) + "\n")


if __name__ == "__main__":
    main()
