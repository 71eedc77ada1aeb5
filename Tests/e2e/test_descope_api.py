"""The Descope-compatible API (/v1/auth, /v2/keys) driven by the unchanged PyPI `descope` SDK (2.16.1),
which checks every JWT it is given against GET /v2/keys/{projectId}, plus raw HTTP for what only
DescopeKit (Swift, Apple-only) calls and for bad input. One server with the default flags
(code verification, no passwordless sign-up) serves the whole module: this API follows Descope's
contract under them."""

from __future__ import annotations

import base64
import html
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from html.parser import HTMLParser

import pyotp
import pytest
from descope import AuthException, DeliveryMethod, DescopeClient, LoginOptions

from conftest import Browserless, GatehouseServer, gatehouse_binary, latest_code, read_mailbox, unique_email

PROJECT = "P2descopeGatehouseTest000001"
OTHER_PROJECT = "P2descopeGatehouseTest000002"
PASSWORD = "first password 1"


def started_server(tmp_path_factory, name: str, projects: str, *flags: str):
    """A server with the default flags (and `flags`) answering for `projects`, stopped after the module."""
    db = tmp_path_factory.mktemp(name) / "gatehouse.sqlite"
    started = GatehouseServer(gatehouse_binary(), db, "code", ["--descope-project-id", projects, *flags])
    try:
        yield started.start()
    finally:
        assert started.stop() == 0, started.log_tail()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from started_server(tmp_path_factory, "descope", f"{PROJECT},{OTHER_PROJECT}")


@pytest.fixture(scope="module")
def client(server) -> DescopeClient:
    return DescopeClient(project_id=PROJECT, base_url=server.url)


@pytest.fixture(scope="module")
def app_server(tmp_path_factory):
    """A second server for the flows that end at an app (links, passkeys, TOTP-only accounts): the
    source's budgets (30 code checks per 5 minutes from 127.0.0.1) then hold for each half."""
    yield from started_server(tmp_path_factory, "descope-app", PROJECT, "--descope-redirect-origin", LISTED_ORIGIN)


@pytest.fixture(scope="module")
def app_client(app_server) -> DescopeClient:
    return DescopeClient(project_id=PROJECT, base_url=app_server.url)


def call(server, method: str, path: str, body: bytes | dict | None = None, auth: str | None = PROJECT,
         content_type: str = "application/json") -> tuple[int, dict]:
    """One raw request; the status and the JSON body."""
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    headers = {"Content-Type": content_type} if data is not None else {}
    if auth is not None:
        headers["Authorization"] = f"Bearer {auth}"
    request = urllib.request.Request(server.url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def error_body(error: AuthException) -> dict:
    """The Python SDK keeps the raw body of a refusal as its message."""
    return json.loads(error.error_message)


def jwt_part(token: str, index: int) -> dict:
    part = token.split(".")[index]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def signed_up(client: DescopeClient, name: str = "Ada Lovelace") -> tuple[str, dict]:
    email = unique_email("descope")
    return email, client.password.sign_up(email, PASSWORD, {"name": name, "givenName": name.split()[0]})


def test_password_journey_through_the_sdk(client, server):
    email, up = signed_up(client)
    # JWTs at once, the address still to verify — whatever --verification says.
    assert up["user"]["verifiedEmail"] is False and up["user"]["name"] == "Ada Lovelace"
    assert up["user"]["givenName"] == "Ada" and "givenName" not in up["user"]["customAttributes"]
    assert up["firstSeen"] is True and up["projectId"] == PROJECT
    user_id = up["userId"]

    signed_in = client.password.sign_in(email, PASSWORD)
    assert signed_in["firstSeen"] is False and signed_in["userId"] == user_id
    session, refresh = signed_in["sessionToken"]["jwt"], signed_in["refreshSessionToken"]["jwt"]
    assert signed_in["sessionToken"]["amr"] == ["pwd"] and signed_in["sessionToken"]["drn"] == "DS"

    validated = client.validate_session(session)
    assert validated["userId"] == user_id and validated["projectId"] == PROJECT

    refreshed = client.refresh_session(refresh)
    assert refreshed["userId"] == user_id and refreshed["refreshSessionToken"]["jwt"] == refresh
    client.validate_session(refreshed["sessionToken"]["jwt"])

    me = client.me(refresh)
    assert me["userId"] == user_id and me["email"] == email and me["loginIds"] == [email]
    assert me["verifiedEmail"] is False and me["name"] == "Ada Lovelace" and me["status"] == "enabled"
    assert me["password"] is True and me["TOTP"] is False and me["OAuth"] == {}

    # update: the refresh JWT is the proof; like a reset, every session ends, this one too.
    client.password.update(email, "second password 2", refresh)
    with pytest.raises(AuthException) as ended:
        client.refresh_session(refresh)
    assert ended.value.status_code == 401
    with pytest.raises(AuthException) as old:
        client.password.sign_in(email, PASSWORD)
    assert old.value.status_code == 401 and error_body(old.value)["errorCode"] == "E062801"

    replaced = client.password.replace(email, "second password 2", "third password 3")
    assert replaced["userId"] == user_id
    again = client.password.sign_in(email, "third password 3")

    reset = client.password.send_reset(email)
    assert reset["maskedEmail"].endswith("@example.com") and reset["maskedEmail"].startswith(email[0] + "***")
    assert any("reset" in mail["subject"].lower() for mail in read_mailbox(server.url, email))

    client.logout(again["refreshSessionToken"]["jwt"])
    with pytest.raises(AuthException) as after_logout:
        client.refresh_session(again["refreshSessionToken"]["jwt"])
    assert after_logout.value.status_code == 401


def test_unknown_and_known_login_ids_answer_alike(client):
    email, _ = signed_up(client)
    with pytest.raises(AuthException) as known:
        client.password.sign_in(email, "not the password")
    with pytest.raises(AuthException) as unknown:
        client.password.sign_in(unique_email("nobody"), "not the password")
    assert (known.value.status_code, error_body(known.value)) == (unknown.value.status_code, error_body(unknown.value))
    assert client.password.send_reset(unique_email("nobody"))["maskedEmail"].endswith("@example.com")
    # Descope's sign-up says a login id is taken; so does this one.
    with pytest.raises(AuthException) as taken:
        client.password.sign_up(email, "another password 9")
    assert taken.value.status_code == 409 and error_body(taken.value)["errorCode"] == "E063003"


def test_logout_all_ends_every_session(client):
    email, up = signed_up(client)
    other = client.password.sign_in(email, PASSWORD)
    history = client.history(other["refreshSessionToken"]["jwt"])
    assert len(history) == 2 and {entry["ip"] for entry in history} == {"127.0.0.1"}
    assert all(entry["userId"] == up["userId"] for entry in history)
    client.logout_all(up["refreshSessionToken"]["jwt"])
    for refresh in (up["refreshSessionToken"]["jwt"], other["refreshSessionToken"]["jwt"]):
        with pytest.raises(AuthException) as ended:
            client.me(refresh)
        assert ended.value.status_code == 401


def test_password_policy_is_the_servers(client):
    policy = client.password.get_policy()
    assert policy["minLength"] == 8
    assert {"lowercase", "uppercase", "number", "nonAlphanumeric"} <= policy.keys()
    with pytest.raises(AuthException) as short:
        client.password.sign_up(unique_email("short"), "short")
    assert short.value.status_code == 400 and error_body(short.value)["errorCode"] == "E011004"


def test_otp_sign_up_or_in_with_the_mailed_code(client, server):
    email = unique_email("otp")
    assert client.otp.sign_up_or_in(DeliveryMethod.EMAIL, email) == email[0] + "***@example.com"
    code = latest_code(server.url, email)
    with pytest.raises(AuthException) as wrong:
        client.otp.verify_code(DeliveryMethod.EMAIL, email, "000000" if code != "000000" else "111111")
    assert wrong.value.status_code == 401 and error_body(wrong.value)["errorCode"] == "E061102"
    verified = client.otp.verify_code(DeliveryMethod.EMAIL, email, code)
    assert verified["user"]["verifiedEmail"] is True and verified["firstSeen"] is True
    assert client.me(verified["refreshSessionToken"]["jwt"])["email"] == email
    # The code is spent.
    with pytest.raises(AuthException) as spent:
        client.otp.verify_code(DeliveryMethod.EMAIL, email, code)
    assert error_body(spent.value)["errorCode"] == "E061102"


def test_otp_sign_in_creates_no_account(client, server):
    email = unique_email("otp-nobody")
    client.otp.sign_in(DeliveryMethod.EMAIL, email)
    time.sleep(0.5)
    assert read_mailbox(server.url, email) == []


def test_otp_marks_a_password_account_verified(client, server):
    email, up = signed_up(client)
    client.otp.sign_in(DeliveryMethod.EMAIL, email)
    verified = client.otp.verify_code(DeliveryMethod.EMAIL, email, latest_code(server.url, email))
    assert verified["userId"] == up["userId"] and verified["firstSeen"] is False
    assert client.me(verified["refreshSessionToken"]["jwt"])["verifiedEmail"] is True


def test_magic_link_sign_up_or_in(client, server):
    email = unique_email("link")
    client.magiclink.sign_up_or_in(DeliveryMethod.EMAIL, email, "http://127.0.0.1:9/done")
    deadline = time.monotonic() + 10
    while not (mails := read_mailbox(server.url, email)) and time.monotonic() < deadline:
        time.sleep(0.1)
    token = urllib.parse.parse_qs(urllib.parse.urlparse(mails[0]["link"]).query)["t"][0]
    signed_in = client.magiclink.verify(token)
    assert signed_in["user"]["email"] == email and signed_in["user"]["verifiedEmail"] is True
    with pytest.raises(AuthException) as spent:
        client.magiclink.verify(token)
    assert spent.value.status_code == 401


APP_URL = "http://localhost:8765/app/callback"
LISTED_ORIGIN = "https://app.example:8443"


def app_token(server, to: str) -> str:
    """The `t` of the newest mail's link to `to`, which opens the app's address."""
    link = wait_for_mail(server, to)["link"]
    assert link.startswith(APP_URL + "?t="), link
    return urllib.parse.parse_qs(urllib.parse.urlparse(link).query)["t"][0]


def test_magic_link_sign_up_opens_the_app_and_keeps_the_name(app_client, app_server):
    email = unique_email("link-app")
    app_client.magiclink.sign_up(DeliveryMethod.EMAIL, email, APP_URL, {"name": "Grace Hopper", "givenName": "Grace"})
    signed_up = app_client.magiclink.verify(app_token(app_server, email))
    assert signed_up["user"]["email"] == email and signed_up["firstSeen"] is True
    assert signed_up["user"]["name"] == "Grace Hopper" and signed_up["user"]["givenName"] == "Grace"


def test_enchanted_link_opens_the_app(app_client, app_server):
    email, up = signed_up(app_client)
    started = app_client.enchantedlink.sign_in(email, APP_URL)
    app_client.enchantedlink.verify(app_token(app_server, email))
    assert app_client.enchantedlink.get_session(started["pendingRef"])["userId"] == up["userId"]


def test_reset_mails_a_link_to_the_app_whose_session_sets_the_password_once(app_client, app_server):
    email, up = signed_up(app_client)
    assert app_client.password.send_reset(email, APP_URL)["maskedEmail"] == email[0] + "***@example.com"
    token = app_token(app_server, email)
    signed_in = app_client.magiclink.verify(token)
    assert signed_in["userId"] == up["userId"]
    with pytest.raises(AuthException) as spent:
        app_client.magiclink.verify(token)
    assert spent.value.status_code == 401
    refresh = signed_in["refreshSessionToken"]["jwt"]
    app_client.password.update(email, "new password 4", refresh)
    with pytest.raises(AuthException) as again:
        app_client.password.update(email, "newer password 5", refresh)
    assert again.value.status_code == 401
    assert app_client.password.sign_in(email, "new password 4")["userId"] == up["userId"]


def test_a_link_to_an_address_not_allowed_is_refused_and_mails_nothing(app_client, app_server):
    email, up = signed_up(app_client)
    new = unique_email("not-moved")
    sends = [lambda: app_client.magiclink.sign_in(DeliveryMethod.EMAIL, email, "https://evil.example/cb"),
             lambda: app_client.magiclink.sign_up_or_in(DeliveryMethod.EMAIL, email, "http://localhost.evil.example/cb"),
             lambda: app_client.enchantedlink.sign_in(email, "http://127.0.0.1.evil.example:8765/cb"),
             lambda: app_client.password.send_reset(email, "https://evil.example/reset")]
    for send in sends:
        with pytest.raises(AuthException) as refused:
            send()
        assert refused.value.status_code == 400 and error_body(refused.value)["errorCode"] == "E011004"
    status, body = call(app_server, "POST", "/v1/auth/magiclink/update/email",
                        {"loginId": email, "email": new, "redirectUrl": "myapp://done"},
                        auth=f"{PROJECT}:{up['refreshSessionToken']['jwt']}")
    assert (status, body["errorCode"]) == (400, "E011004")
    time.sleep(0.3)
    assert read_mailbox(app_server.url, email) == [] and read_mailbox(app_server.url, new) == []


def test_links_open_a_listed_origin_or_a_registered_callback(app_client, app_server):
    # --descope-redirect-origin: any address on that origin, exactly (another port is another origin).
    email = unique_email("listed")
    app_client.magiclink.sign_up_or_in(DeliveryMethod.EMAIL, email, LISTED_ORIGIN + "/descope/done")
    assert wait_for_mail(app_server, email)["link"].startswith(LISTED_ORIGIN + "/descope/done?t=")
    with pytest.raises(AuthException) as other_port:
        app_client.magiclink.sign_up_or_in(DeliveryMethod.EMAIL, unique_email("listed"), "https://app.example/descope/done")
    assert error_body(other_port.value)["errorCode"] == "E011004"
    # A callback registered for an app (the console's apps), exactly as registered.
    callback = "myapp://descope/callback"
    admin_post(app_server, "/_/api/apps", {"name": "Descope links", "callbackURLs": [callback]},
               app_server.superuser_token())
    email = unique_email("registered")
    app_client.magiclink.sign_up_or_in(DeliveryMethod.EMAIL, email, callback)
    assert wait_for_mail(app_server, email)["link"].startswith(callback + "?t=")
    with pytest.raises(AuthException) as unregistered:
        app_client.magiclink.sign_up_or_in(DeliveryMethod.EMAIL, unique_email("registered"), callback + "/other")
    assert error_body(unregistered.value)["errorCode"] == "E011004"


def wait_for_mail(server, to: str, timeout: float = 10) -> dict:
    """The newest mail to `to`, waiting (bounded) for it."""
    deadline = time.monotonic() + timeout
    while not (mails := read_mailbox(server.url, to)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert mails, f"no mail to {to}"
    return mails[0]


def test_otp_update_email_moves_the_account_on_the_code_sent_to_the_new_address(client, server):
    email, up = signed_up(client)
    refresh = up["refreshSessionToken"]["jwt"]
    new = unique_email("moved")
    # The refresh JWT is the proof (Descope's contract): no password.
    assert client.otp.update_user_email(email, new, refresh) == new[0] + "***@example.com"
    code = latest_code(server.url, new)
    assert any("being changed" in mail["subject"] for mail in read_mailbox(server.url, email)), "no notice to the old address"
    with pytest.raises(AuthException) as wrong:
        client.otp.verify_code(DeliveryMethod.EMAIL, email, "000000" if code != "000000" else "111111")
    assert error_body(wrong.value)["errorCode"] == "E061102"
    moved = client.otp.verify_code(DeliveryMethod.EMAIL, email, code)
    assert moved["userId"] == up["userId"] and moved["user"]["email"] == new and moved["user"]["verifiedEmail"] is True
    assert client.me(moved["refreshSessionToken"]["jwt"])["loginIds"] == [new]
    # Every earlier session ended with the change; the password now goes with the new address.
    with pytest.raises(AuthException) as ended:
        client.me(refresh)
    assert ended.value.status_code == 401
    assert client.password.sign_in(new, PASSWORD)["userId"] == up["userId"]
    with pytest.raises(AuthException) as old:
        client.password.sign_in(email, PASSWORD)
    assert error_body(old.value)["errorCode"] == "E062801"
    with pytest.raises(AuthException) as spent:
        client.otp.verify_code(DeliveryMethod.EMAIL, new, code)
    assert error_body(spent.value)["errorCode"] == "E061102"


def test_magiclink_update_email_in_descopekits_shape(client, server):
    email, up = signed_up(client)
    new = unique_email("linked")
    status, body = call(server, "POST", "/v1/auth/magiclink/update/email", {
        "loginId": email, "email": new, "redirectUrl": APP_URL, "addToLoginIDs": False,
        "onMergeUseExisting": False}, auth=f"{PROJECT}:{up['refreshSessionToken']['jwt']}")
    assert (status, body) == (200, {"maskedEmail": new[0] + "***@example.com"})
    moved = client.magiclink.verify(app_token(server, new))
    assert moved["userId"] == up["userId"] and moved["user"]["email"] == new
    # Another account's address, or one's own, is no move: a taken one answers alike and mails no link.
    other, other_up = signed_up(client)
    taken = client.magiclink.update_user_email(other, new, other_up["refreshSessionToken"]["jwt"])
    assert taken == new[0] + "***@example.com"
    assert not read_mailbox(server.url, new)[0].get("link")
    assert client.me(other_up["refreshSessionToken"]["jwt"])["email"] == other
    status, body = call(server, "POST", "/v1/auth/otp/update/email", {"loginId": other, "email": other},
                        auth=f"{PROJECT}:{other_up['refreshSessionToken']['jwt']}")
    assert (status, body["errorCode"]) == (400, "E011004")


def test_a_change_asked_on_the_pages_still_needs_the_password(client, server):
    # A verified account with a password (the pages sign only verified addresses in).
    email = unique_email("paged-from")
    assert call(server, "POST", "/api/auth/users?client_type=mobile", {"email": email, "password": PASSWORD},
                auth="anon")[0] == 200
    assert call(server, "POST", "/api/auth/email/verify?client_type=mobile",
                {"email": email, "otp": latest_code(server.url, email)}, auth="anon")[0] == 200
    up = client.password.sign_in(email, PASSWORD)
    pages = Browserless(server.url)
    assert pages.form_post("/auth/sign-in", "/auth/sign-in", {"email": email, "password": PASSWORD})[0] == 303
    new = unique_email("paged")
    assert pages.form_post("/account/email", "/account/email", {"email": new, "password": PASSWORD})[0] == 303
    token = urllib.parse.parse_qs(urllib.parse.urlparse(wait_for_mail(server, new)["link"]).query)["token"][0]
    # Descope's verify does not take the place of the password the pages confirm with.
    status, body = call(server, "POST", "/v1/auth/magiclink/verify", {"token": token})
    assert (status, body["errorCode"]) == (401, "E061102")
    status, _, page = Browserless(server.url).get("/auth/confirm-email?" + urllib.parse.urlencode({"token": token}))
    assert status == 200 and 'name="password"' in page
    assert client.me(up["refreshSessionToken"]["jwt"])["email"] == email


def test_enchanted_link_opened_in_a_browser_signs_the_polling_app_in_once(client, server):
    email = unique_email("enchanted")
    # No URI: the link opens Gatehouse's own page.
    started = client.enchantedlink.sign_up_or_in(email, "")
    assert started["linkId"] == "1" and started["maskedEmail"] == email[0] + "***@example.com"
    ref = started["pendingRef"]
    status, body = call(server, "POST", "/v1/auth/enchantedlink/pending-session", {"pendingRef": ref})
    assert (status, body["errorCode"]) == (401, "E062503")
    link = urllib.parse.urlparse(wait_for_mail(server, email)["link"])
    assert link.path == "/auth/enchanted"
    page_path = f"{link.path}?{link.query}"
    # The person opens the link in any browser: it asks first (mail scanners open links too).
    browser = Browserless(server.url)
    status, _, page = browser.get(page_path)
    assert status == 200 and "Approve the sign-in" in page
    with pytest.raises(AuthException) as pending:
        client.enchantedlink.get_session(ref)
    assert error_body(pending.value)["errorCode"] == "E062503"
    token = urllib.parse.parse_qs(link.query)["t"][0]
    assert browser.form_post(page_path, "/auth/enchanted", {"t": token})[0] == 200
    # Another app's ref learns nothing; the asking app's poll signs in, once.
    status, body = call(server, "POST", "/v1/auth/enchantedlink/pending-session", {"pendingRef": "x" * 43})
    assert body["errorCode"] == "E062503"
    signed_in = client.enchantedlink.get_session(ref)
    assert signed_in["user"]["email"] == email and signed_in["user"]["verifiedEmail"] is True
    assert signed_in["firstSeen"] is True
    status, body = call(server, "POST", "/v1/auth/enchantedlink/pending-session", {"pendingRef": ref})
    assert (status, body["errorCode"]) == (401, "E061102")


def test_enchanted_link_verified_by_the_app_in_descopekits_shape(client, server):
    email, up = signed_up(client)
    status, started = call(server, "POST", "/v1/auth/enchantedlink/signin/email",
                           {"loginId": email, "redirectUrl": APP_URL, "loginOptions": {}})
    assert status == 200 and set(started) == {"linkId", "pendingRef", "maskedEmail"}
    token = app_token(server, email)
    with pytest.raises(AuthException) as wrong:
        client.enchantedlink.verify("not-the-token-" + "x" * 30)
    assert error_body(wrong.value)["errorCode"] == "E061102"
    client.enchantedlink.verify(token)
    status, body = call(server, "POST", "/v1/auth/enchantedlink/pending-session", {"pendingRef": started["pendingRef"]})
    assert status == 200 and body["user"]["userId"] == up["userId"] and body["firstSeen"] is False
    assert body["sessionJwt"].count(".") == 2 and body["refreshJwt"].count(".") == 2
    # Sign-in only: an unknown address gets the same answer and no mail.
    stranger = unique_email("enchanted-nobody")
    assert client.enchantedlink.sign_in(stranger, APP_URL)["maskedEmail"] == stranger[0] + "***@example.com"
    time.sleep(0.3)
    assert read_mailbox(server.url, stranger) == []


def png_pixels(png: bytes) -> tuple[int, bytes]:
    """The width and the inflated rows of a PNG, every chunk's CRC checked."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    at, width, data = 8, 0, b""
    while at < len(png):
        length = int.from_bytes(png[at:at + 4], "big")
        kind, body = png[at + 4:at + 8], png[at + 8:at + 8 + length]
        assert int.from_bytes(png[at + 8 + length:at + 12 + length], "big") == zlib.crc32(kind + body)
        if kind == b"IHDR":
            width = int.from_bytes(body[:4], "big")
        elif kind == b"IDAT":
            data += body
        at += 12 + length
    return width, zlib.decompress(data)


def test_totp_added_then_asked_at_sign_in(client):
    email, up = signed_up(client)
    refresh = up["refreshSessionToken"]["jwt"]
    key = client.totp.update_user(email, refresh)
    assert key["provisioningURL"].startswith("otpauth://totp/")
    width, rows = png_pixels(base64.b64decode(key["image"]))
    assert width > 100 and len(rows) == width * ((width + 7) // 8 + 1)
    totp = pyotp.TOTP(key["key"])
    with pytest.raises(AuthException) as wrong:
        client.totp.sign_in_code(email, "000000" if totp.now() != "000000" else "111111", LoginOptions(mfa=True), refresh)
    assert error_body(wrong.value)["errorCode"] == "E061102"
    # The previous step's code turns it on (a code is spent once); the current one signs in below.
    confirmed = client.totp.sign_in_code(email, totp.at(time.time() - 30), LoginOptions(mfa=True), refresh)
    assert "totp" in confirmed["sessionToken"]["amr"] and client.me(refresh)["TOTP"] is True

    # The password comes first: the authenticator alone does not sign this account in.
    with pytest.raises(AuthException) as alone:
        client.totp.sign_in_code(email, totp.now())
    assert error_body(alone.value)["errorCode"] == "E061102"
    with pytest.raises(AuthException) as asked:
        client.password.sign_in(email, PASSWORD)
    assert asked.value.status_code == 403 and error_body(asked.value)["errorCode"] == "E011003"
    signed_in = client.totp.sign_in_code(email, totp.now())
    assert signed_in["userId"] == up["userId"] and signed_in["sessionToken"]["amr"] == ["mfa", "totp"]
    with pytest.raises(AuthException) as spent:
        client.totp.sign_in_code(email, totp.now())
    assert error_body(spent.value)["errorCode"] == "E061102"


def test_totp_sign_up_then_the_authenticator_alone_signs_in(app_client):
    email = unique_email("totp-only")
    key = app_client.totp.sign_up(email, {"name": "Tia Totp", "familyName": "Totp"})
    assert key["provisioningURL"].startswith("otpauth://totp/") and email.split("@")[0] in key["provisioningURL"]
    assert base64.b64decode(key["image"])[:8] == b"\x89PNG\r\n\x1a\n"
    totp = pyotp.TOTP(key["key"])
    with pytest.raises(AuthException) as wrong:
        app_client.totp.sign_in_code(email, "000000" if totp.now() != "000000" else "111111")
    assert error_body(wrong.value)["errorCode"] == "E061102"
    signed_in = app_client.totp.sign_in_code(email, totp.now())
    assert signed_in["user"]["email"] == email and signed_in["user"]["name"] == "Tia Totp"
    assert signed_in["user"]["familyName"] == "Totp"
    assert signed_in["user"]["password"] is False and app_client.me(signed_in["refreshSessionToken"]["jwt"])["TOTP"] is True
    # The next step's code signs in again; a spent one does not.
    with pytest.raises(AuthException) as spent:
        app_client.totp.sign_in_code(email, totp.now())
    assert error_body(spent.value)["errorCode"] == "E061102"
    assert app_client.totp.sign_in_code(email, totp.at(time.time() + 30))["userId"] == signed_in["userId"]
    with pytest.raises(AuthException) as taken:
        app_client.totp.sign_up(email)
    assert error_body(taken.value)["errorCode"] == "E063003"


def test_an_authenticator_signed_up_with_someone_elses_address_ends_when_the_owner_proves_it(app_client, app_server):
    victim = unique_email("pre-hijacked")
    attacker = pyotp.TOTP(app_client.totp.sign_up(victim)["key"])
    held = app_client.totp.sign_in_code(victim, attacker.now())["refreshSessionToken"]["jwt"]
    # The address's owner signs in with a mailed code: no second step of the attacker's, who is out.
    app_client.otp.sign_in(DeliveryMethod.EMAIL, victim)
    owner = app_client.otp.verify_code(DeliveryMethod.EMAIL, victim, latest_code(app_server.url, victim))
    assert owner["user"]["verifiedEmail"] is True and owner["user"]["TOTP"] is False
    with pytest.raises(AuthException) as ended:
        app_client.me(held)
    assert ended.value.status_code == 401
    with pytest.raises(AuthException) as refused:
        app_client.totp.sign_in_code(victim, attacker.at(time.time() + 30))
    assert error_body(refused.value)["errorCode"] == "E061102"


def test_passkeys_through_the_python_sdk(app_server):
    from test_passkeys_oracle import SoftwareAuthenticator

    site = app_server.url.replace("127.0.0.1", "localhost")
    sdk = DescopeClient(project_id=PROJECT, base_url=site)
    email = unique_email("passkey-sdk")
    start = sdk.webauthn.sign_up_start(email, site, {"name": "Pia Passkey"})
    first = SoftwareAuthenticator()
    credential = first.create(json.loads(start["options"])["publicKey"], site, handle_as_text=True)
    up = sdk.webauthn.sign_up_finish(start["transactionId"], json.dumps(credential))
    assert up["user"]["email"] == email and up["user"]["name"] == "Pia Passkey" and up["user"]["webauthn"] is True
    # A second passkey: update_finish sends no refresh JWT, its transaction is update_start's.
    start = sdk.webauthn.update_start(email, up["refreshSessionToken"]["jwt"], site)
    second = SoftwareAuthenticator()
    credential = second.create(json.loads(start["options"])["publicKey"], site, handle_as_text=True)
    assert sdk.webauthn.update_finish(start["transactionId"], json.dumps(credential)) is None
    with pytest.raises(AuthException) as replayed:
        sdk.webauthn.update_finish(start["transactionId"], json.dumps(credential))
    assert replayed.value.status_code == 400
    start = sdk.webauthn.sign_in_start(email, site)
    assertion = second.get(json.loads(start["options"])["publicKey"], site, handle_as_text=True)
    assert sdk.webauthn.sign_in_finish(start["transactionId"], json.dumps(assertion))["userId"] == up["userId"]
    # The origin must be the page's, exactly: another port or scheme is refused.
    port = urllib.parse.urlparse(site).port
    for origin in (f"http://localhost:{port + 1}", f"https://localhost:{port}"):
        with pytest.raises(AuthException) as refused:
            sdk.webauthn.sign_in_start(email, origin)
        assert error_body(refused.value)["errorCode"] == "E011004", origin
        with pytest.raises(AuthException) as refused:
            sdk.webauthn.sign_up_start(unique_email("passkey-origin"), origin)
        assert error_body(refused.value)["errorCode"] == "E011004", origin


def test_select_tenant_answers_descopes_tenant_error(app_client):
    _, up = signed_up(app_client)
    with pytest.raises(AuthException) as refused:
        app_client.select_tenant("T2tenant", up["refreshSessionToken"]["jwt"])
    assert refused.value.status_code == 400 and error_body(refused.value)["errorCode"] == "E011004"


def test_keys_and_token_shapes(client, server):
    status, keys = call(server, "GET", f"/v2/keys/{PROJECT}")
    assert status == 200 and [key["alg"] for key in keys["keys"]] == ["ES256"]
    _, up = signed_up(client)
    for name, drn in (("sessionToken", "DS"), ("refreshSessionToken", "DSR")):
        token = up[name]["jwt"]
        assert jwt_part(token, 0)["kid"] == keys["keys"][0]["kid"]
        claims = jwt_part(token, 1)
        assert claims["iss"] == PROJECT and claims["drn"] == drn and claims["sub"] == up["userId"]
        assert claims["roles"] == [] and claims["permissions"] == [] and claims["tenants"] == {}
    assert call(server, "GET", "/v2/keys/P2unknown")[0] == 404


def test_refresh_answers_first_seen_for_descopekit(client, server):
    _, up = signed_up(client)
    status, body = call(server, "POST", "/v1/auth/refresh", {}, auth=f"{PROJECT}:{up['refreshSessionToken']['jwt']}")
    assert status == 200 and body["firstSeen"] is False and body["sessionJwt"].count(".") == 2
    # Not rotated, so not answered (Descope adds it only when it rotates); DescopeKit keeps its own.
    assert "refreshJwt" not in body
    assert {"userId", "loginIds", "status", "createdTime", "roleNames", "ssoAppIds", "webauthn", "password", "TOTP",
            "OAuth", "SAML", "SCIM"} <= body["user"].keys()


def test_another_projects_tokens_are_refused(client, server):
    _, up = signed_up(client)
    other = DescopeClient(project_id=OTHER_PROJECT, base_url=server.url)
    with pytest.raises(AuthException) as refused:
        other.me(up["refreshSessionToken"]["jwt"])
    assert refused.value.status_code == 401 and error_body(refused.value)["errorCode"] == "E011003"


def tampered(token: str) -> str:
    head, payload, signature = token.split(".")
    claims = jwt_part(token, 1)
    claims["sub"] = "someone-else"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return ".".join([head, forged, signature])


def test_bad_input_answers_descopes_shape(client, server):
    email, up = signed_up(client)
    session, refresh = up["sessionToken"]["jwt"], up["refreshSessionToken"]["jwt"]
    signed_in = f"{PROJECT}:{refresh}"
    cases = [
        ("malformed JSON", "POST", "/v1/auth/password/signin", b"{not json", PROJECT, 400, "E011001"),
        ("JSON not an object", "POST", "/v1/auth/password/signin", b"[1]", PROJECT, 400, "E011001"),
        ("a byte that is not UTF-8", "POST", "/v1/auth/password/signup",
         b'{"loginId": "utf8@example.com", "password": "pass\xffword-123"}', PROJECT, 400, "E011001"),
        ("missing loginId", "POST", "/v1/auth/password/signin", {"password": "x"}, PROJECT, 400, "E011002"),
        ("loginId not a string", "POST", "/v1/auth/otp/signin/email", {"loginId": 7}, PROJECT, 400, "E011004"),
        ("loginId not an address", "POST", "/v1/auth/otp/signup-in/email", {"loginId": "ada"}, PROJECT, 400, "E011004"),
        ("missing code", "POST", "/v1/auth/otp/verify/email", {"loginId": "a@example.com"}, PROJECT, 400, "E011002"),
        ("missing token", "POST", "/v1/auth/magiclink/verify", {}, PROJECT, 400, "E011002"),
        ("no Authorization", "POST", "/v1/auth/password/signin", {"loginId": "a@example.com", "password": "x"}, None,
         401, "E011003"),
        ("wrong project id", "POST", "/v1/auth/password/signin", {"loginId": "a@example.com", "password": "x"},
         "P2someoneElse", 401, "E011003"),
        ("no refresh JWT", "POST", "/v1/auth/refresh", {}, PROJECT, 401, "E011003"),
        ("session JWT as refresh JWT", "POST", "/v1/auth/refresh", {}, f"{PROJECT}:{session}", 401, "E011003"),
        ("tampered refresh JWT", "GET", "/v1/auth/me", None, f"{PROJECT}:{tampered(refresh)}", 401, "E011003"),
        ("not a JWT", "POST", "/v1/auth/logout", {}, f"{PROJECT}:garbage", 401, "E011003"),
        ("another project's refresh JWT", "POST", "/v1/auth/refresh", {}, f"{OTHER_PROJECT}:{refresh}", 401, "E011003"),
        ("update/email without refresh JWT", "POST", "/v1/auth/otp/update/email",
         {"loginId": email, "email": "b@example.com"}, PROJECT, 401, "E011003"),
        ("update/email missing email", "POST", "/v1/auth/magiclink/update/email", {"loginId": email}, signed_in,
         400, "E011002"),
        ("update/email not an address", "POST", "/v1/auth/otp/update/email", {"loginId": email, "email": "nope"},
         signed_in, 400, "E011004"),
        ("update/email another's loginId", "POST", "/v1/auth/otp/update/email",
         {"loginId": "a@example.com", "email": "b@example.com"}, signed_in, 400, "E011004"),
        ("enchanted start not an address", "POST", "/v1/auth/enchantedlink/signin/email", {"loginId": "ada"}, PROJECT,
         400, "E011004"),
        ("pending-session missing pendingRef", "POST", "/v1/auth/enchantedlink/pending-session", {}, PROJECT, 400,
         "E011002"),
        ("pendingRef not a string", "POST", "/v1/auth/enchantedlink/pending-session", {"pendingRef": 5}, PROJECT, 400,
         "E011004"),
        ("enchanted verify missing token", "POST", "/v1/auth/enchantedlink/verify", {}, PROJECT, 400, "E011002"),
        ("enchanted verify unknown token", "POST", "/v1/auth/enchantedlink/verify", {"token": "t" * 43}, PROJECT, 401,
         "E061102"),
        ("unknown route", "POST", "/v1/auth/nothing-here", {}, PROJECT, 404, "E011001"),
        ("wrong method", "GET", "/v1/auth/refresh", None, PROJECT, 405, "E011001"),
    ]
    for name, method, path, body, auth, status, code in cases:
        got_status, got = call(server, method, path, body, auth)
        assert (got_status, got.get("errorCode")) == (status, code), f"{name}: {got_status} {got}"
        assert {"errorDescription", "errorMessage"} <= got.keys(), name
    got_status, got = call(server, "POST", "/v1/auth/otp/signin/email", {"loginId": email}, content_type="text/plain")
    assert (got_status, got.get("errorCode")) == (415, "E011001"), f"text/plain body: {got_status} {got}"


def test_an_expired_refresh_jwt_is_refused(start_server):
    started = start_server(extra_args=["--descope-project-id", PROJECT, "--descope-refresh-lifetime", "1"])
    client = DescopeClient(project_id=PROJECT, base_url=started.url)
    _, up = signed_up(client)
    refresh = up["refreshSessionToken"]["jwt"]
    time.sleep(1.2)
    status, body = call(started, "GET", "/v1/auth/me", None, f"{PROJECT}:{refresh}")
    assert (status, body["errorCode"]) == (401, "E011003")


def test_one_store_with_the_other_ways_in(client, server):
    # An account made on the InsForge API and verified there signs in here.
    email = unique_email("insforge")
    status, _ = call(server, "POST", "/api/auth/users?client_type=mobile", {"email": email, "password": PASSWORD},
                     auth="anon")
    assert status == 200
    status, _ = call(server, "POST", "/api/auth/email/verify?client_type=mobile",
                     {"email": email, "otp": latest_code(server.url, email)}, auth="anon")
    assert status == 200
    descope = client.password.sign_in(email, PASSWORD)
    assert descope["user"]["verifiedEmail"] is True
    # Its session is one of the person's sessions on the pages, and their "sign out everywhere" ends it.
    pages = Browserless(server.url)
    status, _, _ = pages.form_post("/auth/sign-in", "/auth/sign-in", {"email": email, "password": PASSWORD})
    assert status == 303
    status, _, listed = pages.get("/account/sessions")
    assert status == 200 and re.search(r"\bPython\b(?!-urllib)", listed), "the SDK's (httpx) session is not listed"
    status, _, _ = pages.form_post("/account/sessions", "/account/sessions/sign-out-all", {})
    assert status == 303
    with pytest.raises(AuthException) as ended:
        client.refresh_session(descope["refreshSessionToken"]["jwt"])
    assert ended.value.status_code == 401
    # An account made here shows in the admin API's list, its session among the person's sessions.
    mine, up = signed_up(client)
    request = urllib.request.Request(f"{server.url}/_/api/users?" + urllib.parse.urlencode({"q": mine}),
                                     headers={"Authorization": f"Bearer {server.superuser_token()}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        listed = json.loads(response.read())
    assert up["userId"] in json.dumps(listed)


def test_project_id_is_made_and_logged_without_the_flag(start_server):
    started = start_server()
    logged = re.search(r"descope_project_ids=(P\w{27})", started.log_tail(200))
    assert logged, started.log_tail()
    client = DescopeClient(project_id=logged.group(1), base_url=started.url)
    _, up = signed_up(client)
    assert up["projectId"] == logged.group(1)


def test_tokens_in_cookies_when_the_project_keeps_them_there(start_server):
    started = start_server(extra_args=["--descope-project-id", PROJECT, "--descope-token-cookies"])
    client = DescopeClient(project_id=PROJECT, base_url=started.url)
    email = unique_email("cookies")
    up = client.password.sign_up(email, PASSWORD)
    # The body's refreshJwt is empty; the SDK took the DSR cookie, and checked it against the keys.
    refresh = up["refreshSessionToken"]["jwt"]
    assert jwt_part(refresh, 1)["drn"] == "DSR" and client.me(refresh)["email"] == email

    request = urllib.request.Request(started.url + "/v1/auth/refresh", data=b"{}", method="POST", headers={
        "Content-Type": "application/json", "Authorization": f"Bearer {PROJECT}", "Cookie": f"DSR={refresh}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        body = json.loads(response.read())
        cookies = response.headers.get_all("Set-Cookie")
    assert "refreshJwt" not in body and body["sessionJwt"].count(".") == 2
    assert any(c.startswith("DS=") and "HttpOnly" in c and "SameSite=Strict" in c for c in cookies), cookies
    # The refresh JWT is not rotated: the DSR cookie is left as it is.
    assert not any(c.startswith("DSR=") for c in cookies), cookies

    request = urllib.request.Request(started.url + "/v1/auth/logout", data=b"{}", method="POST", headers={
        "Content-Type": "application/json", "Authorization": f"Bearer {PROJECT}", "Cookie": f"DSR={refresh}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert any(c.startswith("DSR=;") and "Max-Age=0" in c for c in response.headers.get_all("Set-Cookie"))
    with pytest.raises(AuthException) as ended:
        client.me(refresh)
    assert ended.value.status_code == 401


class FirstForm(HTMLParser):
    """The hidden fields of a page's first form."""

    def __init__(self):
        super().__init__()
        self.fields: dict[str, str] = {}
        self.done = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if not self.done and tag == "input" and attributes.get("type") == "hidden":
            self.fields[attributes["name"]] = attributes.get("value") or ""

    def handle_endtag(self, tag):
        self.done = self.done or tag == "form"


def admin_post(server, path: str, body: dict, token: str) -> None:
    request = urllib.request.Request(server.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 201, response.read()


def test_oauth_through_the_test_provider(client, server):
    token = server.superuser_token()
    admin_post(server, "/_/api/providers",
               {"name": "acme", "type": "oidc", "mode": "test", "displayName": "Acme", "clientId": "acme-client"}, token)
    callback = "http://127.0.0.1:9/descope-done"
    admin_post(server, "/_/api/apps", {"name": "Descope app", "callbackURLs": [callback]}, token)
    with pytest.raises(AuthException) as unregistered:
        client.oauth.start("acme", "http://127.0.0.1:9/elsewhere")
    assert error_body(unregistered.value)["errorCode"] == "E011004"

    started = client.oauth.start("acme", callback)
    # Each flow is bound to a verifier of its own, kept by the server (Descope's exchange sends none).
    challenges = [urllib.parse.parse_qs(urllib.parse.urlparse(flow["url"]).query)["code_challenge"][0]
                  for flow in (started, client.oauth.start("acme", callback))]
    assert challenges[0] != challenges[1]
    walker = Browserless(server.url)
    location, chose = started["url"], False
    for _ in range(6):  # Gatehouse's provider start, the test provider's page and its hand-back, the callback.
        if location.startswith(callback):
            break
        status, headers, page = walker.get(location.removeprefix(server.url))
        if status == 200 and not chose:
            form = FirstForm()
            form.feed(page)
            status, headers, page = walker.post(location.removeprefix(server.url).split("?")[0],
                                                {**form.fields, "action": "fixed-0"})
            chose = True
        if status == 200:  # "Returning to the app…", whose script follows the link
            location = html.unescape(re.search(r'data-continue-url="([^"]+)"', page).group(1))
        else:
            assert status in (302, 303), (status, page[:300])
            location = headers["Location"]
    assert location.startswith(callback), location
    code = urllib.parse.parse_qs(urllib.parse.urlparse(location).query)["code"][0]
    signed_in = client.oauth.exchange_token(code)
    assert signed_in["user"]["email"].endswith("@test.gatehouse.local") and signed_in["sessionToken"]["amr"] == ["oauth"]
    assert client.me(signed_in["refreshSessionToken"]["jwt"])["OAuth"] == {"acme": True}
    with pytest.raises(AuthException) as spent:
        client.oauth.exchange_token(code)
    assert error_body(spent.value)["errorCode"] == "E061102"


def test_sign_in_with_apple_natively(start_server):
    """DescopeKit's `oauth.native` (Apple-only, so raw HTTP): start → Apple's identity token, made here
    with a local ES256 key served as Apple's JWKS → finish."""
    import http.server
    import socket
    import threading

    import jwt
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    public = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
    keys = json.dumps({"keys": [{**public, "kid": "apple-test", "alg": "ES256", "use": "sig"}]}).encode()

    class Keys(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server API
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(keys)

        def log_message(self, *args):
            pass

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    jwks = http.server.HTTPServer(("127.0.0.1", port), Keys)
    threading.Thread(target=jwks.serve_forever, daemon=True).start()
    try:
        started = start_server(extra_args=[
            "--descope-project-id", PROJECT, "--apple-audience", "com.example.app",
            "--apple-jwksurl", f"http://127.0.0.1:{port}/auth/keys"])

        def token(nonce: str, subject: str = "apple-subject-1") -> str:
            now = int(time.time())
            return jwt.encode({"iss": "https://appleid.apple.com", "aud": "com.example.app", "sub": subject,
                               "email": f"{subject}@example.com", "email_verified": "true", "nonce": nonce,
                               "iat": now, "exp": now + 300}, key, algorithm="ES256", headers={"kid": "apple-test"})

        status, start = call(started, "POST", "/v1/auth/oauth/native/start", {"provider": "apple", "loginOptions": {}})
        assert status == 200 and start["clientId"] == "com.example.app" and start["implicit"] is True
        finish = {"provider": "apple", "stateId": start["stateId"], "idToken": token(start["nonce"]),
                  "user": json.dumps({"name": {"firstName": "Ada", "lastName": "Apple"}})}
        status, body = call(started, "POST", "/v1/auth/oauth/native/finish", finish)
        assert status == 200, body
        assert body["user"]["email"] == "apple-subject-1@example.com" and body["user"]["name"] == "Ada Apple"
        assert jwt_part(body["sessionJwt"], 1)["amr"] == ["oauth"]

        replayed = call(started, "POST", "/v1/auth/oauth/native/finish", finish)
        assert (replayed[0], replayed[1]["errorCode"]) == (401, "E011003")
        other_nonce = {**finish, "idToken": token("not-the-nonce", "apple-subject-2")}
        assert call(started, "POST", "/v1/auth/oauth/native/finish", other_nonce)[0] == 401
        forged_state = {**finish, "stateId": tampered(start["stateId"]), "idToken": token(start["nonce"], "apple-3")}
        assert call(started, "POST", "/v1/auth/oauth/native/finish", forged_state)[1]["errorCode"] == "E011004"
        assert call(started, "POST", "/v1/auth/oauth/native/start", {"provider": "google"})[0] == 400
    finally:
        jwks.shutdown()
