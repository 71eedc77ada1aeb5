"""SuperTokens' frontend API (FDI), differentially: the reference is an unchanged supertokens-python
0.31.4 app (supertokens_fdi_reference.py, its own process) with Gatehouse as its core; the same
request scripts, as a SuperTokens frontend sends them, go to the reference's /auth and to Gatehouse's
own FDI. Statuses, body keys and value types, the front-token's contents and the session headers
(header names, cookie names and paths, exposed headers) must match.

Differences kept, each on purpose (none shows in these scripts):
- A verification link spent while the sign-up's session is presented: Gatehouse ends that session
  (an unproven account's sessions are provisional: its account-trust rule) where the reference
  renews its `st-ev`; the script spends the link without a session, as when it opens in a mail app.
- `.well-known/openid-configuration` names only `issuer`, `jwks_uri` and the supported types:
  Gatehouse is no OAuth provider, so it has no authorization or token endpoints to name.
- Which passwords pass: Gatehouse's one password rule (length and strength) against SuperTokens'
  default (8 characters with a number); the scripts use a strong one.
- Resending a code within a minute is held (429), the pages' cool-down; the scripts do not resend.
- The mails themselves are Gatehouse's (subject, text and link addresses).
- A cleared session answers `front-token: remove` and expired cookies, without the SDK's empty
  `st-access-token`/`st-refresh-token` headers (libmicrohttpd sends no empty header value; the
  frontends drop their tokens on `remove`), so `Access-Control-Expose-Headers` names only `front-token`.
"""

from __future__ import annotations

import base64
import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from conftest import GatehouseServer, gatehouse_binary, read_mailbox, unique_email

PASSWORD = "Correct-horse-battery-9"
SESSION_HEADERS = ("front-token", "st-access-token", "st-refresh-token", "anti-csrf")
REFERENCE = Path(__file__).with_name("supertokens_fdi_reference.py")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def targets(tmp_path_factory):
    """Gatehouse (mail caught by its SMTP catcher) and the reference app on it as its core."""
    tmp = tmp_path_factory.mktemp("fdi")
    smtp_port = free_port()
    server = GatehouseServer(gatehouse_binary(), tmp / "gatehouse.sqlite", "link", ["--smtp", f"127.0.0.1:{smtp_port}"])
    server.start()
    port = free_port()
    log = open(tmp / "reference.log", "w")
    reference = subprocess.Popen(
        [sys.executable, str(REFERENCE), server.url, server.supertokens_api_key(), str(smtp_port), str(port)],
        stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert reference.poll() is None and time.monotonic() < deadline, (tmp / "reference.log").read_text()
                time.sleep(0.1)
        yield {"reference": f"http://127.0.0.1:{port}", "gatehouse": server.url, "mailbox": server.url}
    finally:
        reference.terminate()
        reference.wait(10)
        log.close()
        assert server.stop() == 0, server.log_tail()


class Frontend:
    """A SuperTokens frontend: `rid`, `fdi-version`, `st-auth-mode` on every call; its tokens kept
    from the answers (headers in header mode, the cookie jar in cookie mode)."""

    def __init__(self, base: str, cookie_mode: bool = False):
        self.base, self.cookie_mode = base, cookie_mode
        self.http = requests.Session()
        self.access = self.refresh_token = None

    def call(self, method: str, path: str, body=None, rid: str = "session", refresh: bool = False):
        headers = {"rid": rid, "fdi-version": "3.0,4.0", "st-auth-mode": "cookie" if self.cookie_mode else "header"}
        token = self.refresh_token if refresh else self.access
        if token and not self.cookie_mode:
            headers["Authorization"] = f"Bearer {token}"
        response = self.http.request(method, self.base + path, json=body, headers=headers, timeout=30)
        if response.headers.get("st-access-token") is not None:
            self.access = response.headers["st-access-token"] or None
        if response.headers.get("st-refresh-token") is not None:
            self.refresh_token = response.headers["st-refresh-token"] or None
        return response


def form(email: str, password: str = PASSWORD):
    return {"formFields": [{"id": "email", "value": email}, {"id": "password", "value": password}]}


def mailed(base: str, to: str, pattern: str) -> str:
    deadline = time.monotonic() + 20
    while True:
        for mail in read_mailbox(base, to):
            found = re.search(pattern, (mail.get("text") or "") + (mail.get("html") or ""))
            if found:
                return found.group(1)
        assert time.monotonic() < deadline, f"no mail matching {pattern!r} to {to}: {read_mailbox(base, to)!r}"
        time.sleep(0.05)


def script(base: str, mailbox: str) -> list[tuple[str, requests.Response]]:
    """Sign-up → verify the address → sign-in → refresh in both transports → login methods →
    passwordless code → sign-out → the refresh refused."""
    email, code_email = unique_email("fdi"), unique_email("fdi-code")
    steps = []
    new = Frontend(base)
    steps.append(("signup", new.call("POST", "/auth/signup", form(email), rid="emailpassword")))
    steps.append(("signup again", new.call("POST", "/auth/signup", form(email), rid="emailpassword")))
    steps.append(("exists", new.call("GET", f"/auth/emailpassword/email/exists?email={email}", rid="emailpassword")))
    steps.append(("is verified", new.call("GET", "/auth/user/email/verify", rid="emailverification")))
    steps.append(("verify token", new.call("POST", "/auth/user/email/verify/token", rid="emailverification")))
    token = mailed(mailbox, email, r"token=([A-Za-z0-9_\-%.]+)")
    link = Frontend(base)
    steps.append(("verify", link.call("POST", "/auth/user/email/verify", {"method": "token", "token": token},
                                      rid="emailverification")))
    steps.append(("wrong password", Frontend(base).call("POST", "/auth/signin", form(email, "Wrong-battery-77"),
                                                        rid="emailpassword")))
    header = Frontend(base)
    steps.append(("signin header", header.call("POST", "/auth/signin", form(email), rid="emailpassword")))
    steps.append(("refresh header", header.call("POST", "/auth/session/refresh", refresh=True)))
    steps.append(("is verified after", header.call("GET", "/auth/user/email/verify", rid="emailverification")))
    cookie = Frontend(base, cookie_mode=True)
    steps.append(("signin cookie", cookie.call("POST", "/auth/signin", form(email), rid="emailpassword")))
    steps.append(("refresh cookie", cookie.call("POST", "/auth/session/refresh")))
    steps.append(("signout cookie", cookie.call("POST", "/auth/signout")))
    steps.append(("loginmethods", Frontend(base).call("GET", "/auth/loginmethods", rid="multitenancy")))
    passwordless = Frontend(base)
    started = passwordless.call("POST", "/auth/signinup/code", {"email": code_email}, rid="passwordless")
    steps.append(("code", started))
    device = started.json()
    code = mailed(mailbox, code_email, r"\b(\d{6})\b")
    consume = {"preAuthSessionId": device["preAuthSessionId"], "deviceId": device["deviceId"]}
    steps.append(("wrong code", passwordless.call("POST", "/auth/signinup/code/consume",
                                                   {**consume, "userInputCode": "000000" if code != "000000" else "111111"},
                                                   rid="passwordless")))
    steps.append(("consume", passwordless.call("POST", "/auth/signinup/code/consume", {**consume, "userInputCode": code},
                                               rid="passwordless")))
    kept = header.refresh_token
    steps.append(("signout", header.call("POST", "/auth/signout")))
    header.refresh_token = kept
    steps.append(("refresh refused", header.call("POST", "/auth/session/refresh", refresh=True)))
    return steps


def shape(value):
    """Keys and value types, recursively; a list by its first item's shape."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in sorted(value.items())}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return type(value).__name__


def session_headers(response: requests.Response) -> dict:
    # Which cookies are set where (the reference's sign-out sets a promoted access token first, then clears it).
    cookies = sorted({(cookie.split("=", 1)[0], re.search(r"Path=([^;]*)", cookie, re.I).group(1))
                      for cookie in response.raw.headers.getlist("Set-Cookie") if cookie.split("=", 1)[0].startswith("s")})
    exposed = sorted({name.strip().lower() for name in response.headers.get("Access-Control-Expose-Headers", "").split(",")
                      if response.headers.get(name.strip())})
    # An empty header is no header: libmicrohttpd sends none (see the kept differences).
    present = sorted(name for name in SESSION_HEADERS if response.headers.get(name))
    return {"headers": present, "cookies": cookies, "exposed": exposed}


def front_token(response: requests.Response):
    value = response.headers.get("front-token")
    if value in (None, "remove"):
        return value
    decoded = json.loads(base64.b64decode(value))
    return {"keys": sorted(decoded), "up": shape(decoded["up"]), "st-ev": decoded["up"].get("st-ev", {}).get("v")}


def test_gatehouse_fdi_answers_as_the_reference_does(targets):
    reference = script(targets["reference"], targets["mailbox"])
    gatehouse = script(targets["gatehouse"], targets["mailbox"])
    for (step, theirs), (_, ours) in zip(reference, gatehouse):
        assert ours.status_code == theirs.status_code, f"{step}: {ours.status_code} {ours.text} vs {theirs.status_code} {theirs.text}"
        assert shape(ours.json()) == shape(theirs.json()), f"{step}: {ours.text} vs {theirs.text}"
        if isinstance(theirs.json(), dict) and "status" in theirs.json():
            assert ours.json()["status"] == theirs.json()["status"], step
        assert session_headers(ours) == session_headers(theirs), f"{step}: {dict(ours.headers)} vs {dict(theirs.headers)}"
        assert front_token(ours) == front_token(theirs), f"{step}"


def rownd_script(base: str, mailbox: str) -> list[tuple[str, requests.Response]]:
    """The Rownd SDK's plugin calls: the app's configuration, the account's data read and written, a
    field, what is refused (no session, an identity field, no field named, guests, the cross-device
    bypass), a passwordless account's meta, the plugin's sign-out and the account deleted."""
    email, code_email = unique_email("rownd"), unique_email("rownd-code")
    steps = []
    app = Frontend(base)
    steps.append(("app-config", app.call("GET", "/auth/plugin/rownd/app-config")))
    steps.append(("user without session", app.call("GET", "/auth/plugin/rownd/user")))
    app.call("POST", "/auth/signup", form(email), rid="emailpassword")
    steps.append(("user", app.call("GET", "/auth/plugin/rownd/user")))
    steps.append(("put user", app.call("PUT", "/auth/plugin/rownd/user", {"data": {"first_name": "Ada"}})))
    steps.append(("field", app.call("GET", "/auth/plugin/rownd/user/field?field=first_name")))
    steps.append(("put field", app.call("PUT", "/auth/plugin/rownd/user/field?field=last_name", {"value": "Lovelace"})))
    steps.append(("no field", app.call("GET", "/auth/plugin/rownd/user/field")))
    steps.append(("identity field", app.call("PUT", "/auth/plugin/rownd/user", {"data": {"user_id": "someone"}})))
    steps.append(("guest", Frontend(base).call("POST", "/auth/plugin/rownd/guest", {})))
    steps.append(("bypass", Frontend(base).call("POST", "/auth/plugin/passwordless-cross-device-confirmation/validate", {})))
    passwordless = Frontend(base)
    device = passwordless.call("POST", "/auth/signinup/code", {"email": code_email}, rid="passwordless").json()
    code = mailed(mailbox, code_email, r"\b(\d{6})\b")
    steps.append(("consume", passwordless.call("POST", "/auth/signinup/code/consume", {
        "preAuthSessionId": device["preAuthSessionId"], "deviceId": device["deviceId"], "userInputCode": code},
        rid="passwordless")))
    steps.append(("passwordless user", passwordless.call("GET", "/auth/plugin/rownd/user")))
    steps.append(("meta", passwordless.call("GET", "/auth/plugin/rownd/user/meta")))
    steps.append(("put meta", passwordless.call("PUT", "/auth/plugin/rownd/user/meta", {"meta": {"plan": "pro"}})))
    steps.append(("meta after", passwordless.call("GET", "/auth/plugin/rownd/user/meta")))
    steps.append(("plugin signout", passwordless.call("POST", "/auth/plugin/rownd/signout")))
    steps.append(("user after signout", passwordless.call("GET", "/auth/plugin/rownd/user")))
    steps.append(("delete", app.call("DELETE", "/auth/plugin/rownd/user")))
    steps.append(("user after delete", app.call("GET", "/auth/plugin/rownd/user")))
    return steps


def test_gatehouse_rownd_plugin_answers_as_the_reference_does(targets):
    """Kept differences: `app.config.supertokens.appInfo` (which the iOS SDK checks against its own
    `apiDomain`/`apiBasePath`) is Gatehouse's alone; `data.email` is the account's address for every
    account, where the plugin shows it only for a passwordless or third-party login method (an
    email-password account's is missing). The rest matches key for key and type for type."""
    reference = rownd_script(targets["reference"], targets["mailbox"])
    gatehouse = rownd_script(targets["gatehouse"], targets["mailbox"])
    for (step, theirs), (_, ours) in zip(reference, gatehouse):
        assert ours.status_code == theirs.status_code, f"{step}: {ours.status_code} {ours.text} vs {theirs.status_code} {theirs.text}"
        mine, expected = ours.json(), theirs.json()
        if step == "app-config":
            app_info = mine["app"]["config"].pop("supertokens")["appInfo"]
            assert app_info == {"apiDomain": targets["gatehouse"], "apiBasePath": "/auth"}
        if isinstance(mine.get("data"), dict) and "email" not in expected.get("data", {}):
            assert mine["data"].pop("email").startswith("rownd-"), step
        assert shape(mine) == shape(expected), f"{step}: {ours.text} vs {theirs.text}"
        for key in ("status", "message", "auth_level", "bypass"):
            assert mine.get(key) == expected.get(key), f"{step}: {key}: {ours.text} vs {theirs.text}"
        assert session_headers(ours) == session_headers(theirs), f"{step}: {dict(ours.headers)} vs {dict(theirs.headers)}"
        assert front_token(ours) == front_token(theirs), step
