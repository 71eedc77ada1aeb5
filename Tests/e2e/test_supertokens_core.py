"""The SuperTokens-core-compatible API (CDI 5.4): an unchanged supertokens-python 0.31.4 app —
Flask, driven in-process through its test client in header mode — with Gatehouse as its core
(`connection_uri`), and its mail sent by the SDK's own SMTP delivery into Gatehouse's SMTP catcher
(`--smtp`), so codes and links land in the dev mailbox. Then the core's answers to bad input,
straight over HTTP, table-driven.

supertokens-python keeps one global configuration per process, so one server and one app serve the
whole module.
"""

from __future__ import annotations

import base64
import html
import json
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import GatehouseServer, gatehouse_binary, read_mailbox, unique_email

PASSWORD = "Correct-horse-battery-9"
NEW_PASSWORD = "Staple-battery-horse-42"
HEADER_MODE = {"st-auth-mode": "header"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def build_app(core_url: str, api_key: str, smtp_port: int):
    """A supertokens-python app as its docs write one, `connection_uri` pointed at Gatehouse and
    `api_key` the one the startup log showed."""
    from flask import Flask, jsonify, g
    from supertokens_python import InputAppInfo, SupertokensConfig, init
    from supertokens_python.framework.flask import Middleware
    from supertokens_python.recipe import multifactorauth, totp, usermetadata
    from supertokens_python.recipe.session.framework.flask import verify_session

    from supertokens_recipes import mailing_recipes

    init(
        app_info=InputAppInfo(app_name="Demo", api_domain="http://localhost:5000", website_domain="http://localhost:3000"),
        supertokens_config=SupertokensConfig(connection_uri=core_url, api_key=api_key),
        framework="flask",
        mode="wsgi",
        recipe_list=[
            *mailing_recipes(smtp_port, "REQUIRED", "USER_INPUT_CODE_AND_MAGIC_LINK"),
            usermetadata.init(),
            totp.init(),
            multifactorauth.init(),
        ],
    )
    app = Flask(__name__)
    Middleware(app)

    @app.get("/protected")
    @verify_session()
    def protected():
        return jsonify(user=g.supertokens.get_user_id())

    @app.get("/whoami")
    @verify_session(override_global_claim_validators=lambda *_: [])
    def whoami():
        return jsonify(user=g.supertokens.get_user_id(), handle=g.supertokens.get_handle())

    @app.get("/checked")
    @verify_session(check_database=True, override_global_claim_validators=lambda *_: [])
    def checked():
        return jsonify(user=g.supertokens.get_user_id())

    return app.test_client()


@pytest.fixture(scope="module")
def core(tmp_path_factory):
    """One Gatehouse with its SMTP catcher on, and the app pointed at it."""
    tmp = tmp_path_factory.mktemp("supertokens")
    smtp_port = free_port()
    # A fixed port, so the app's `connection_uri` still names the core after a restart.
    server = GatehouseServer(gatehouse_binary(), tmp / "gatehouse.sqlite", "code", ["--smtp", f"127.0.0.1:{smtp_port}"],
                             port=free_port())
    server.start()
    try:
        yield server, build_app(server.url, server.supertokens_api_key(), smtp_port)
    finally:
        assert server.stop() == 0, server.log_tail()


def form(**fields):
    return {"formFields": [{"id": key, "value": value} for key, value in fields.items()]}


def bearer(token):
    return {**HEADER_MODE, "Authorization": f"Bearer {token}"}


def mailed(base_url: str, to: str, pattern: str, timeout: float = 30) -> str:
    """The first match of `pattern` in the newest mail to `to` that has one, waiting for it."""
    deadline = time.monotonic() + timeout
    while True:
        for mail in read_mailbox(base_url, to):
            found = re.search(pattern, (mail.get("text") or "") + (mail.get("html") or ""))
            if found:
                return urllib.parse.unquote(html.unescape(found.group(1)))
        if time.monotonic() > deadline:
            raise AssertionError(f"no mail matching {pattern!r} to {to} within {timeout} s: {read_mailbox(base_url, to)!r}")
        time.sleep(0.1)


def admin(server, path: str):
    request = urllib.request.Request(server.url + path, headers={"Authorization": "Bearer " + server.superuser_token()})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def core_call(server, method: str, path: str, body=None, headers=None):
    """A raw CDI call with the key from the startup log: (status, parsed JSON or the text)."""
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        server.url + path, data=data, method=method,
        headers={"Content-Type": "application/json", "cdi-version": "5.4", "api-key": server.supertokens_api_key(),
                 **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def test_an_unchanged_supertokens_app_runs_on_gatehouse(core):
    server, app = core
    email = unique_email("st")

    # Sign-up: the user is Gatehouse's, listed by the admin API; the session is in the header.
    signed_up = app.post("/auth/signup", json=form(email=email, password=PASSWORD), headers=HEADER_MODE)
    assert signed_up.status_code == 200 and signed_up.json["status"] == "OK", signed_up.json
    user_id = signed_up.json["user"]["id"]
    access, refresh = signed_up.headers["st-access-token"], signed_up.headers["st-refresh-token"]
    header = json.loads(base64.urlsafe_b64decode(access.split(".")[0] + "=="))
    assert header["kid"].startswith("d-") and header["version"] == "5" and header["alg"] == "ES256"
    listed = admin(server, "/_/api/users?" + urllib.parse.urlencode({"q": email}))["items"]
    assert [item["id"] for item in listed] == [user_id]
    assert read_mailbox(server.url, email) == []  # the core mails nothing: the app's recipe decides

    # User metadata is the Gatehouse profile: what the app stores, the console shows.
    from supertokens_python.recipe.usermetadata.syncio import get_user_metadata, update_user_metadata

    assert update_user_metadata(user_id, {"plan": "pro", "name": "Ada"}).metadata == {"plan": "pro", "name": "Ada"}
    assert update_user_metadata(user_id, {"plan": None}).metadata == {"name": "Ada"}
    assert get_user_metadata(user_id).metadata == {"name": "Ada"}
    assert admin(server, f"/_/api/users/{user_id}")["profile"] == {"name": "Ada"}

    duplicate = app.post("/auth/signup", json=form(email=email, password=PASSWORD), headers=HEADER_MODE)
    assert duplicate.json["status"] == "FIELD_ERROR", duplicate.json
    wrong = app.post("/auth/signin", json=form(email=email, password="Wrong-password-1"), headers=HEADER_MODE)
    assert wrong.json["status"] == "WRONG_CREDENTIALS_ERROR", wrong.json

    # Email verification is REQUIRED: the protected route refuses the unverified session.
    assert app.get("/whoami", headers=bearer(access)).json["user"] == user_id
    refused = app.get("/protected", headers=bearer(access))
    assert refused.status_code == 403, (refused.status_code, refused.json)

    # Refresh rotates both tokens; the new access token works (the SDK asks the core on first use).
    refreshed = app.post("/auth/session/refresh", headers=bearer(refresh))
    assert refreshed.status_code == 200, refreshed.data
    new_access, new_refresh = refreshed.headers["st-access-token"], refreshed.headers["st-refresh-token"]
    assert new_access != access and new_refresh != refresh
    first_use = app.get("/whoami", headers=bearer(new_access))
    assert first_use.status_code == 200 and first_use.json["user"] == user_id
    new_access = first_use.headers["st-access-token"]  # the core swapped it for one without the parent's hash

    # The verification link arrives through the SDK's SMTP delivery into Gatehouse's mailbox.
    sent = app.post("/auth/user/email/verify/token", headers=bearer(new_access))
    assert sent.json["status"] == "OK", sent.json
    token = mailed(server.url, email, r"verify-email\?token=([^&\s\"<]+)")
    verified = app.post("/auth/user/email/verify", json={"method": "token", "token": token}, headers=HEADER_MODE)
    assert verified.json["status"] == "OK", verified.json
    assert admin(server, f"/_/api/users/{user_id}")["emailVerified"] is True
    # The frontend asks again; the SDK updates the session's `st-ev` claim (the core regenerates
    # the access token), and the protected route lets the session in.
    checked = app.get("/auth/user/email/verify", headers=bearer(new_access))
    assert checked.json == {"status": "OK", "isVerified": True}, checked.json
    new_access = checked.headers["st-access-token"]
    assert app.get("/protected", headers=bearer(new_access)).json["user"] == user_id

    # Password reset by the mailed link: the old password is refused afterwards; sessions ended.
    asked = app.post("/auth/user/password/reset/token", json=form(email=email), headers=HEADER_MODE)
    assert asked.json["status"] == "OK", asked.json
    reset_token = mailed(server.url, email, r"reset-password\?token=([^&\s\"<]+)")
    reset = app.post(
        "/auth/user/password/reset", json={"method": "token", "token": reset_token, **form(password=NEW_PASSWORD)},
        headers=HEADER_MODE)
    assert reset.json["status"] == "OK", reset.json
    old = app.post("/auth/signin", json=form(email=email, password=PASSWORD), headers=HEADER_MODE)
    assert old.json["status"] == "WRONG_CREDENTIALS_ERROR", old.json
    assert app.get("/checked", headers=bearer(new_access)).status_code == 401

    signed_in = app.post("/auth/signin", json=form(email=email, password=NEW_PASSWORD), headers=HEADER_MODE)
    assert signed_in.json["status"] == "OK", signed_in.json
    access, refresh = signed_in.headers["st-access-token"], signed_in.headers["st-refresh-token"]
    assert app.get("/protected", headers=bearer(access)).json["user"] == user_id
    sessions = admin(server, f"/_/api/users/{user_id}/sessions")
    assert len([item for item in sessions if item.get("revokedAt") is None]) == 1, sessions

    # Sign-out ends the session: without a token, and with the old one where the core is asked.
    out = app.post("/auth/signout", headers=bearer(access))
    assert out.status_code == 200, out.data
    assert app.get("/protected", headers=HEADER_MODE).status_code == 401
    assert app.get("/checked", headers=bearer(access)).status_code == 401

    # A rotated refresh token presented again is theft: the session is revoked.
    signed_in = app.post("/auth/signin", json=form(email=email, password=NEW_PASSWORD), headers=HEADER_MODE)
    stolen = signed_in.headers["st-refresh-token"]
    rotated = app.post("/auth/session/refresh", headers=bearer(stolen))
    access = rotated.headers["st-access-token"]
    assert app.get("/checked", headers=bearer(access)).status_code == 200
    theft = app.post("/auth/session/refresh", headers=bearer(stolen))
    assert theft.status_code == 401 and theft.json.get("message") == "token theft detected", (theft.status_code, theft.data)
    assert app.get("/checked", headers=bearer(access)).status_code == 401
    assert app.post("/auth/session/refresh", headers=bearer(rotated.headers["st-refresh-token"])).status_code == 401

    # Every act is audited with its way in.
    events = admin(server, "/_/api/audit?" + urllib.parse.urlencode({"user": user_id}))
    ways = {}
    for event in events:
        ways.setdefault(event["type"], set()).add(event["data"].get("via"))
    for act in ["user.signed_up", "app.session_opened", "sign_in.completed", "verification.completed",
                "password_reset.completed", "password.changed", "profile.updated", "sign_out"]:
        assert "supertokens-core" in ways.get(act, set()), (act, ways)
    refused = admin(server, "/_/api/audit?" + urllib.parse.urlencode({"type": "sign_up.refused"}))
    assert any(event["data"].get("email") == email and event["data"].get("via") == "supertokens-core"
               and event["data"].get("reason") == "email_exists" for event in refused), refused


def other_code(code: str) -> str:
    return "000000" if code != "000000" else "111111"


def not_a_code(secret: str) -> str:
    """Six digits that are none of the codes an authenticator shows within a step of now."""
    import pyotp

    now = time.time()
    window = {pyotp.TOTP(secret).at(now + shift) for shift in (-60, -30, 0, 30, 60)}
    return next(code for code in ("000000", "111111", "222222", "333333", "444444", "555555") if code not in window)


def test_an_authenticator_app_as_the_mfa_recipes_second_factor(core):
    import pyotp
    from supertokens_python.recipe.emailverification.syncio import (
        create_email_verification_token, verify_email_using_token)
    from supertokens_python.recipe.multifactorauth.syncio import add_to_required_secondary_factors_for_user
    from supertokens_python.types import RecipeUserId

    server, app = core
    email = unique_email("st-totp")
    signed_up = app.post("/auth/signup", json=form(email=email, password=PASSWORD), headers=HEADER_MODE)
    assert signed_up.json["status"] == "OK", signed_up.json
    user_id, access = signed_up.json["user"]["id"], signed_up.headers["st-access-token"]
    verify_email_using_token("public", create_email_verification_token("public", RecipeUserId(user_id)).token)

    # The app's TOTP recipe sets up the account's authenticator: a key, then a first code.
    created = app.post("/auth/totp/device", json={}, headers=bearer(access))
    assert created.json["status"] == "OK", created.json
    device, secret = created.json["deviceName"], created.json["secret"]
    assert device == "TOTP Device 0" and created.json["qrCodeString"].startswith("otpauth://totp/"), created.json
    listed = app.get("/auth/totp/device/list", headers=bearer(access)).json
    assert listed == {"status": "OK", "devices": [{"name": device, "period": 30, "skew": 1, "verified": False}]}, listed
    code = pyotp.TOTP(secret).now()
    wrong = app.post("/auth/totp/device/verify", json={"deviceName": device, "totp": not_a_code(secret)}, headers=bearer(access))
    assert wrong.json == {"status": "INVALID_TOTP_ERROR", "currentNumberOfFailedAttempts": 1,
                          "maxNumberOfFailedAttempts": 5}, wrong.json
    unknown = app.post("/auth/totp/device/verify", json={"deviceName": "My phone", "totp": code}, headers=bearer(access))
    assert unknown.json["status"] == "UNKNOWN_DEVICE_ERROR", unknown.json
    verified = app.post("/auth/totp/device/verify", json={"deviceName": device, "totp": code}, headers=bearer(access))
    assert verified.json == {"status": "OK", "wasAlreadyVerified": False}, verified.json
    setup_access = verified.headers.get("st-access-token", access)
    add_to_required_secondary_factors_for_user(user_id, "totp")
    # One authenticator per account: a second device is refused (the SDK raises on it, so straight to the core).
    second = core_call(server, "POST", "/recipe/totp/device", {"userId": user_id, "deviceName": "Tablet", "skew": 1, "period": 30})
    assert second == (200, {"status": "DEVICE_ALREADY_EXISTS_ERROR"}), second

    # A password sign-in now leaves the second step to the MFA recipe: the session is held back
    # until the code, checked against the sign-in's pending step (a wrong one counted).
    signed_in = app.post("/auth/signin", json=form(email=email, password=PASSWORD), headers=HEADER_MODE)
    assert signed_in.json["status"] == "OK", signed_in.json
    access = signed_in.headers["st-access-token"]
    held = app.get("/protected", headers=bearer(access))
    assert held.status_code == 403, (held.status_code, held.json)
    next_code = pyotp.TOTP(secret).at(time.time() + 30)  # the step after the one enrolment spent
    wrong = app.post("/auth/totp/verify", json={"totp": not_a_code(secret)}, headers=bearer(access))
    assert wrong.json == {"status": "INVALID_TOTP_ERROR", "currentNumberOfFailedAttempts": 1,
                          "maxNumberOfFailedAttempts": 5}, wrong.json
    passed = app.post("/auth/totp/verify", json={"totp": next_code}, headers=bearer(access))
    assert passed.json == {"status": "OK"}, passed.json
    access = passed.headers["st-access-token"]
    assert app.get("/protected", headers=bearer(access)).json["user"] == user_id
    replayed = app.post("/auth/totp/verify", json={"totp": next_code}, headers=bearer(access))
    assert replayed.json["status"] == "INVALID_TOTP_ERROR", replayed.json

    # A passwordless sign-in of the account leaves its second step waiting the same way.
    asked = core_call(server, "POST", "/public/recipe/signinup/code", {"email": email})[1]
    consumed = core_call(server, "POST", "/public/recipe/signinup/code/consume", {
        "preAuthSessionId": asked["preAuthSessionId"], "deviceId": asked["deviceId"], "userInputCode": asked["userInputCode"]})
    assert consumed[1]["status"] == "OK" and consumed[1]["user"]["id"] == user_id, consumed
    waiting = core_call(server, "POST", "/public/recipe/totp/verify", {"userId": user_id, "totp": not_a_code(secret)})[1]
    assert waiting["currentNumberOfFailedAttempts"] == 1, waiting  # a live step, not one out of tries

    # Guessing at a new sign-in's step: five tries, then none left; then the source is held back.
    guesser = app.post("/auth/signin", json=form(email=email, password=PASSWORD), headers=HEADER_MODE)
    guess_access = guesser.headers["st-access-token"]
    counts, limited = [], None
    for _ in range(40):
        answer = app.post("/auth/totp/verify", json={"totp": not_a_code(secret)}, headers=bearer(guess_access)).json
        if answer["status"] == "LIMIT_REACHED_ERROR":
            limited = answer
            break
        counts.append(answer["currentNumberOfFailedAttempts"])
    assert counts[:6] == [1, 2, 3, 4, 5, 5], counts
    assert limited is not None and limited["retryAfterMs"] > 0, (counts, limited)

    # Removing the device needs the completed second step (the SDK checks it); then the account has none.
    refused = app.post("/auth/totp/device/remove", json={"deviceName": device}, headers=bearer(guess_access))
    assert refused.status_code == 403, (refused.status_code, refused.json)
    removed = app.post("/auth/totp/device/remove", json={"deviceName": device}, headers=bearer(access))
    assert removed.json == {"status": "OK", "didDeviceExist": True}, removed.json
    assert app.get("/auth/totp/device/list", headers=bearer(setup_access)).json == {"status": "OK", "devices": []}

    events = admin(server, "/_/api/audit?" + urllib.parse.urlencode({"user": user_id}))
    ways = {(event["type"], event["data"].get("via")) for event in events}
    for act in ["totp.enabled", "mfa.completed", "totp.disabled"]:
        assert (act, "supertokens-core") in ways, (act, ways)


def test_passwordless_code_and_magic_link_sign_in_through_the_sdk(core):
    server, app = core
    email = unique_email("st-pwless")

    # A new address: the code and the link arrive in one mail, through the SDK's SMTP delivery.
    asked = app.post("/auth/signinup/code", json={"email": email}, headers=HEADER_MODE)
    assert asked.json["status"] == "OK", asked.json
    device, pre_auth = asked.json["deviceId"], asked.json["preAuthSessionId"]
    code = mailed(server.url, email, r"\s(\d{6})</div>")  # where the SDK's template puts the OTP
    wrong = app.post(
        "/auth/signinup/code/consume",
        json={"preAuthSessionId": pre_auth, "deviceId": device, "userInputCode": "000000" if code != "000000" else "111111"},
        headers=HEADER_MODE)
    assert wrong.json["status"] == "INCORRECT_USER_INPUT_CODE_ERROR", wrong.json
    assert wrong.json["failedCodeInputAttemptCount"] == 1 and wrong.json["maximumCodeInputAttempts"] == 5
    consumed = app.post(
        "/auth/signinup/code/consume", json={"preAuthSessionId": pre_auth, "deviceId": device, "userInputCode": code},
        headers=HEADER_MODE)
    assert consumed.json["status"] == "OK" and consumed.json["createdNewRecipeUser"] is True, consumed.json
    user_id = consumed.json["user"]["id"]
    access = consumed.headers["st-access-token"]
    # The account is Gatehouse's, verified by the code: the REQUIRED verification lets it in.
    assert admin(server, f"/_/api/users/{user_id}")["emailVerified"] is True
    assert app.get("/protected", headers=bearer(access)).json["user"] == user_id
    spent = app.post(
        "/auth/signinup/code/consume", json={"preAuthSessionId": pre_auth, "deviceId": device, "userInputCode": code},
        headers=HEADER_MODE)
    assert spent.json["status"] == "RESTART_FLOW_ERROR", spent.json

    # The magic link signs an existing account in (an address that signed up with a password).
    other = unique_email("st-link")
    signed_up = app.post("/auth/signup", json=form(email=other, password=PASSWORD), headers=HEADER_MODE)
    assert signed_up.json["status"] == "OK", signed_up.json
    asked = app.post("/auth/signinup/code", json={"email": other}, headers=HEADER_MODE)
    assert asked.json["status"] == "OK", asked.json
    link = mailed(server.url, other, r"(http://localhost:3000/auth/verify\?[^\s\"<]+)")
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)
    assert query["preAuthSessionId"] == [asked.json["preAuthSessionId"]], link
    by_link = app.post(
        "/auth/signinup/code/consume",
        json={"preAuthSessionId": query["preAuthSessionId"][0], "linkCode": urllib.parse.urlsplit(link).fragment},
        headers=HEADER_MODE)
    assert by_link.json["status"] == "OK" and by_link.json["createdNewRecipeUser"] is False, by_link.json
    assert by_link.json["user"]["id"] == signed_up.json["user"]["id"]
    assert app.get("/protected", headers=bearer(by_link.headers["st-access-token"])).status_code == 200


API_KEY = "test-api-key-1"


def test_what_the_core_acknowledged_survives_kill_9(core):
    """Issue 44: a passwordless code, the app's data on a session and an authenticator device's name
    and wrong codes live in the SQLite file, so `kill -9` between two steps loses none of them. The
    tests after this one run against the restarted server, the SDK's app unchanged."""
    import pyotp

    server, _ = core
    email = unique_email("st-restart")
    status, asked = core_call(server, "POST", "/public/recipe/signinup/code", {"email": email})
    assert status == 200 and asked["status"] == "OK", asked
    device = {"preAuthSessionId": asked["preAuthSessionId"], "deviceId": asked["deviceId"]}
    wrong = core_call(server, "POST", "/public/recipe/signinup/code/consume",
                      {**device, "userInputCode": other_code(asked["userInputCode"])})[1]
    assert wrong["status"] == "INCORRECT_USER_INPUT_CODE_ERROR" and wrong["failedCodeInputAttemptCount"] == 1, wrong

    user_id = core_call(server, "POST", "/public/recipe/signup",
                        {"email": unique_email("st-restart-data"), "password": PASSWORD})[1]["user"]["id"]
    created = core_call(server, "POST", "/public/recipe/session", {
        "userId": user_id, "userDataInJWT": {"role": "reader"}, "userDataInDatabase": {"cart": 1},
        "useDynamicSigningKey": True, "enableAntiCsrf": False})[1]
    handle = created["session"]["handle"]
    assert core_call(server, "PUT", "/recipe/session/data",
                     {"sessionHandle": handle, "userDataInDatabase": {"cart": 2}}) == (200, {"status": "OK"})
    assert core_call(server, "PUT", "/recipe/jwt/data",
                     {"sessionHandle": handle, "userDataInJWT": {"role": "editor"}}) == (200, {"status": "OK"})

    enrolled = core_call(server, "POST", "/recipe/totp/device",
                         {"userId": user_id, "deviceName": "Phone", "skew": 1, "period": 30})[1]
    assert enrolled["status"] == "OK" and enrolled["deviceName"] == "Phone", enrolled
    secret = enrolled["secret"]
    totp = {"userId": user_id, "deviceName": "Phone"}
    first_wrong = core_call(server, "POST", "/public/recipe/totp/device/verify", {**totp, "totp": not_a_code(secret)})[1]
    assert first_wrong["currentNumberOfFailedAttempts"] == 1, first_wrong

    server.kill()
    server.start()

    consumed = core_call(server, "POST", "/public/recipe/signinup/code/consume",
                         {**device, "userInputCode": asked["userInputCode"]})[1]
    assert consumed["status"] == "OK" and consumed["user"]["emails"] == [email], consumed
    assert consumed["consumedDevice"]["failedCodeInputAttemptCount"] == 1, consumed

    info = core_call(server, "GET", "/recipe/session?" + urllib.parse.urlencode({"sessionHandle": handle}))[1]
    assert info["userDataInDatabase"] == {"cart": 2} and info["userDataInJWT"] == {"role": "editor"}, info
    refreshed = core_call(server, "POST", "/recipe/session/refresh",
                          {"refreshToken": created["refreshToken"]["token"], "enableAntiCsrf": False})[1]
    assert refreshed["status"] == "OK" and claims_of(refreshed["accessToken"]["token"])["role"] == "editor", refreshed

    listed = core_call(server, "GET", "/recipe/totp/device/list?" + urllib.parse.urlencode({"userId": user_id}))[1]
    assert listed["devices"] == [{"name": "Phone", "period": 30, "skew": 1, "verified": False}], listed
    second_wrong = core_call(server, "POST", "/public/recipe/totp/device/verify", {**totp, "totp": not_a_code(secret)})[1]
    assert second_wrong["currentNumberOfFailedAttempts"] == 2, second_wrong
    verified = core_call(server, "POST", "/public/recipe/totp/device/verify", {**totp, "totp": pyotp.TOTP(secret).now()})
    assert verified == (200, {"status": "OK", "wasAlreadyVerified": False}), verified


def test_the_sdks_user_lists_verification_removal_and_codes_by_email(core):
    """Issue 43: what supertokens-python asks the core for beyond the sign-in flows — the users newest
    and oldest first, paginated, and their count; an address unverified and its verification tokens
    revoked; a passwordless request listed by address — and a code resent through the app's own
    route at once (the core keeps no cool-down between codes; the prebuilt UI's 15 s are checked
    against a test clock in SuperTokensCoreLookupTests)."""
    from supertokens_python.recipe.emailverification.interfaces import VerifyEmailUsingTokenOkResult
    from supertokens_python.recipe.emailverification.syncio import (
        create_email_verification_token, is_email_verified, revoke_email_verification_tokens, unverify_email,
        verify_email_using_token)
    from supertokens_python.recipe.passwordless.syncio import list_codes_by_email, list_codes_by_phone_number
    from supertokens_python.syncio import get_user_count, get_users_newest_first, get_users_oldest_first
    from supertokens_python.types import RecipeUserId

    server, app = core
    before = get_user_count()
    emails = [unique_email(f"st-list-{index}") for index in range(3)]
    ids = [core_call(server, "POST", "/public/recipe/signup", {"email": email, "password": PASSWORD})[1]["user"]["id"]
           for email in emails]
    assert get_user_count() == before + 3
    newest = get_users_newest_first("public", limit=2)
    assert [user.id for user in newest.users] == [ids[2], ids[1]] and newest.next_pagination_token, newest
    following = get_users_newest_first("public", limit=2, pagination_token=newest.next_pagination_token)
    assert following.users[0].id == ids[0], [user.id for user in following.users]
    oldest = get_users_oldest_first("public", limit=500)
    assert [user.id for user in oldest.users][-3:] == ids and oldest.next_pagination_token is None
    assert get_users_newest_first("public", include_recipe_ids=["thirdparty"]).users == []

    revoked = RecipeUserId(ids[0])
    token = create_email_verification_token("public", revoked).token
    revoke_email_verification_tokens("public", revoked)
    assert not isinstance(verify_email_using_token("public", token), VerifyEmailUsingTokenOkResult)
    assert not is_email_verified(revoked)
    unverified = RecipeUserId(ids[1])
    assert isinstance(verify_email_using_token(
        "public", create_email_verification_token("public", unverified).token), VerifyEmailUsingTokenOkResult)
    assert is_email_verified(unverified)
    unverify_email(unverified)
    assert not is_email_verified(unverified)

    address = unique_email("st-codes")
    asked = app.post("/auth/signinup/code", json={"email": address}, headers=HEADER_MODE).json
    assert asked["status"] == "OK", asked
    resent = app.post("/auth/signinup/code/resend", headers=HEADER_MODE,
                      json={"deviceId": asked["deviceId"], "preAuthSessionId": asked["preAuthSessionId"]})
    assert resent.status_code == 200 and resent.json["status"] == "OK", resent.json
    devices = list_codes_by_email("public", address)
    assert [(device.pre_auth_session_id, device.email) for device in devices] == [(asked["preAuthSessionId"], address)]
    assert list_codes_by_phone_number("public", "+14155550100") == []


@pytest.fixture(scope="module")
def keyed_core(tmp_path_factory):
    """A Gatehouse that asks for an API key, with one-second access tokens (to see them expire)."""
    tmp = tmp_path_factory.mktemp("supertokens-keyed")
    server = GatehouseServer(
        gatehouse_binary(), tmp / "gatehouse.sqlite", "code",
        ["--supertokens-api-key", API_KEY, "--supertokens-access-token-validity", "1"])
    server.start()
    try:
        yield server
    finally:
        assert server.stop() == 0, server.log_tail()


def keyed(server, method, path, body=None, headers=None):
    return core_call(server, method, path, body, {"api-key": API_KEY, **(headers or {})})


def foreign_token(kid: str) -> str:
    import jwt
    from cryptography.hazmat.primitives.asymmetric import ec

    now = int(time.time())
    claims = {"sub": "x", "rsub": "x", "tId": "public", "sessionHandle": "1-x", "refreshTokenHash1": "h",
              "iat": now, "exp": now + 3600}
    return jwt.encode(claims, ec.generate_private_key(ec.SECP256R1()), algorithm="ES256",
                      headers={"kid": kid, "version": "5"})


def tampered(token: str) -> str:
    header, payload, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    claims["sub"] = "someone-else"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    return ".".join([header, forged, signature])


def test_bad_input_gets_the_cores_answers_never_a_5xx(keyed_core):
    server = keyed_core
    email = unique_email("st-bad")
    signed_up = keyed(server, "POST", "/public/recipe/signup", {"email": email, "password": PASSWORD})
    assert signed_up[0] == 200 and signed_up[1]["status"] == "OK", signed_up
    user_id = signed_up[1]["user"]["id"]
    created = keyed(server, "POST", "/public/recipe/session", {
        "userId": user_id, "userDataInJWT": {}, "userDataInDatabase": {}, "useDynamicSigningKey": True,
        "enableAntiCsrf": False})
    assert created[0] == 200 and created[1]["status"] == "OK", created
    access = created[1]["accessToken"]["token"]
    time.sleep(1.2)  # the access token is now expired (one-second validity)

    def verify(token):
        return ("POST", "/recipe/session/verify",
                {"accessToken": token, "doAntiCsrfCheck": False, "enableAntiCsrf": False, "checkDatabase": True}, {})

    # (method, path, body, extra headers) -> (status, body or the status in a 200 body)
    table = [
        (("GET", "/apiversion", None, {"api-key": ""}), (200, {"versions": ["5.4"]})),
        (("POST", "/public/recipe/signup", {"email": email, "password": PASSWORD}, {"api-key": "wrong"}),
         (401, "Invalid API key")),
        (("POST", "/public/recipe/signup", {"email": email, "password": PASSWORD}, {"api-key": ""}),
         (401, "Invalid API key")),
        (("POST", "/public/recipe/signup", {"email": email, "password": PASSWORD}, {"cdi-version": "2.9"}),
         (400, "cdi-version 2.9 not supported")),
        (("POST", "/public/recipe/signup", b"{", {}), (400, None)),
        (("POST", "/public/recipe/signup", b"[]", {}), (400, "Invalid Json Input")),
        (("POST", "/public/recipe/signup", b'{"email": "utf8@example.com", "password": "pass\xffword-123"}', {}),
         (400, "Invalid Json Input")),
        (("POST", "/public/recipe/signup", {"email": email}, {}), (400, "Field name 'password' is invalid in JSON input")),
        (("POST", "/public/recipe/signup", {"email": 5, "password": PASSWORD}, {}),
         (400, "Field name 'email' is invalid in JSON input")),
        (("POST", "/public/recipe/signup", {"email": email, "password": PASSWORD}, {}), (200, "EMAIL_ALREADY_EXISTS_ERROR")),
        (("POST", "/public/recipe/signin", {"email": email, "password": "Not-it-123"}, {}), (200, "WRONG_CREDENTIALS_ERROR")),
        (("POST", "/appid-demo/public/recipe/signin", {"email": email, "password": "Not-it-123"}, {}),
         (200, "WRONG_CREDENTIALS_ERROR")),
        (("GET", "/appid-demo/apiversion", None, {}), (200, {"versions": ["5.4"]})),
        (("POST", "/not-an-app/public/recipe/signin", {"email": email, "password": "Not-it-123"}, {}), (404, None)),
        (("POST", "/recipe/nothing-here", {}, {}), (404, None)),
        (("POST", "/public/recipe/nothing/here", {}, {}), (404, None)),
        (("GET", "/user/id", None, {}), (400, "Field name 'userId' is missing in GET request")),
        (("GET", "/user/id?userId=no-such-user", None, {}), (200, "UNKNOWN_USER_ID_ERROR")),
        (("GET", "/recipe/user/metadata?userId=no-such-user", None, {}), (200, "OK")),
        (("PUT", "/recipe/user/metadata", {"userId": user_id, "metadataUpdate": []}, {}),
         (400, "Field name 'metadataUpdate' is invalid in JSON input")),
        (verify(foreign_token("d-foreign")), (200, "TRY_REFRESH_TOKEN")),
        (verify(foreign_token(json.loads(base64.urlsafe_b64decode(access.split(".")[0] + "=="))["kid"])),
         (200, "TRY_REFRESH_TOKEN")),
        (verify(tampered(access)), (200, "TRY_REFRESH_TOKEN")),
        (verify(access), (200, "TRY_REFRESH_TOKEN")),
        (verify("not.a.jwt"), (200, "TRY_REFRESH_TOKEN")),
        (("POST", "/recipe/session/refresh", {"refreshToken": "garbage", "enableAntiCsrf": False}, {}),
         (200, "UNAUTHORISED")),
        (("POST", "/recipe/session/regenerate", {"accessToken": tampered(access), "userDataInJWT": {}}, {}),
         (200, "UNAUTHORISED")),
        (("POST", "/recipe/session/remove", {"sessionHandles": ["1-forged", 7]}, {}), (200, "OK")),
        (("POST", "/public/recipe/session", {"userId": "no-such-user"}, {}), (200, "UNAUTHORISED")),
        (("POST", "/public/recipe/user/password/reset/token/consume", {"token": "nope"}, {}),
         (200, "RESET_PASSWORD_INVALID_TOKEN_ERROR")),
        (("POST", "/public/recipe/user/password/reset/token", {"userId": "no-such-user", "email": email}, {}),
         (200, "UNKNOWN_USER_ID_ERROR")),
        (("POST", "/public/recipe/user/email/verify", {"method": "token", "token": "nope"}, {}),
         (200, "EMAIL_VERIFICATION_INVALID_TOKEN_ERROR")),
        (("PUT", "/recipe/user", {"recipeUserId": "no-such-user", "password": NEW_PASSWORD}, {}),
         (200, "UNKNOWN_USER_ID_ERROR")),
        (("POST", "/public/recipe/signinup/code/consume", {"preAuthSessionId": "nope", "linkCode": "x"}, {}),
         (200, "RESTART_FLOW_ERROR")),
        (("POST", "/public/recipe/signinup/code", {"deviceId": "nope"}, {}), (200, "RESTART_FLOW_ERROR")),
        (("POST", "/public/recipe/signinup/code/check", {"preAuthSessionId": "nope", "linkCode": "x"}, {}),
         (200, "RESTART_FLOW_ERROR")),
        (("POST", "/recipe/totp/device", {"userId": "no-such-user", "skew": 1, "period": 30}, {}), (400, None)),
        (("POST", "/recipe/totp/device", {"userId": user_id, "skew": 1, "period": 60}, {}), (400, None)),
        (("POST", "/recipe/totp/device", {"userId": user_id, "deviceName": "", "skew": 1, "period": 30}, {}),
         (400, "deviceName cannot be empty")),
        (("GET", "/recipe/totp/device/list?userId=no-such-user", None, {}), (200, {"status": "OK", "devices": []})),
        (("POST", "/recipe/totp/device/remove", {"userId": user_id, "deviceName": "Phone"}, {}),
         (200, {"status": "OK", "didDeviceExist": False})),
        (("PUT", "/recipe/totp/device", {"userId": user_id, "existingDeviceName": "a", "newDeviceName": "b"}, {}),
         (200, "UNKNOWN_DEVICE_ERROR")),
        (("POST", "/public/recipe/totp/device/verify", {"userId": user_id, "deviceName": "Phone", "totp": "123456"}, {}),
         (200, "UNKNOWN_DEVICE_ERROR")),
        (("POST", "/public/recipe/totp/verify", {"userId": user_id, "totp": "123456"}, {}), (200, "UNKNOWN_USER_ID_ERROR")),
        (("POST", "/public/recipe/totp/verify", {"userId": "no-such-user", "totp": "123456"}, {}),
         (200, "UNKNOWN_USER_ID_ERROR")),
        (("GET", "/recipe/session?sessionHandle=1-forged", None, {}), (200, "UNAUTHORISED")),
        (("GET", "/recipe/session", None, {}), (400, "Field name 'sessionHandle' is missing in GET request")),
        (("PUT", "/recipe/session/data", {"sessionHandle": "1-forged", "userDataInDatabase": []}, {}),
         (400, "Field name 'userDataInDatabase' is invalid in JSON input")),
        (("POST", "/public/recipe/signinup/code", {"email": "not an address"}, {}), (400, None)),
        (("GET", "/public/users?timeJoinedOrder=UP", None, {}), (400, "timeJoinedOrder can be either ASC OR DESC")),
        (("GET", "/public/users?limit=0", None, {}), (400, None)),
        (("GET", "/public/users?limit=501", None, {}), (400, "max limit allowed is 500")),
        (("GET", "/public/users?paginationToken=bogus", None, {}), (400, "invalid pagination token")),
        (("POST", "/recipe/user/email/verify/remove", {"userId": "nobody"}, {}),
         (400, "Field name 'email' is invalid in JSON input")),
        (("POST", "/public/recipe/user/email/verify/token/remove", {"userId": "nobody", "email": "a@example.com"}, {}),
         (200, {"status": "OK"})),
        # Codes are resent at the prebuilt UI's pace (no minute cool-down at the core), but the
        # address's hourly cap holds: the eleventh in the hour is refused.
        *[(("POST", "/public/recipe/signinup/code", {"email": email}, {}), (200, "OK"))] * 10,
        (("POST", "/public/recipe/signinup/code", {"email": email}, {}), (429, None)),
    ]
    forged = keyed(server, "POST", "/recipe/session/remove", {"sessionHandles": [f"1-{'0' * 32}", "7"]})
    assert forged == (200, {"status": "OK", "sessionHandlesRevoked": []}), forged
    for (method, path, body, headers), (status, expected) in table:
        got_status, got = keyed(server, method, path, body, headers)
        label = f"{method} {path} {str(body)[:60]} {headers}"
        assert got_status == status, f"{label}: {got_status} {got!r}"
        if isinstance(expected, dict):
            assert got == expected, f"{label}: {got!r}"
        elif status == 200 and expected is not None:
            assert got["status"] == expected, f"{label}: {got!r}"
        elif expected is not None:
            assert got == expected, f"{label}: {got!r}"

    # Every body route, every field, every wrong type: a 4xx or a 200 with a status, never a 5xx.
    routes = {
        ("POST", "/public/recipe/signup"): ["email", "password"],
        ("POST", "/public/recipe/signin"): ["email", "password"],
        ("POST", "/public/recipe/session"): ["userId", "userDataInJWT", "useDynamicSigningKey", "enableAntiCsrf"],
        ("POST", "/recipe/session/verify"): ["accessToken", "doAntiCsrfCheck", "enableAntiCsrf", "checkDatabase"],
        ("POST", "/recipe/session/refresh"): ["refreshToken", "enableAntiCsrf", "useDynamicSigningKey"],
        ("POST", "/recipe/session/remove"): ["sessionHandles", "userId"],
        ("POST", "/recipe/session/regenerate"): ["accessToken", "userDataInJWT"],
        ("POST", "/public/recipe/user/password/reset/token"): ["userId", "email"],
        ("POST", "/public/recipe/user/password/reset/token/consume"): ["token"],
        ("PUT", "/recipe/user"): ["recipeUserId", "email", "password"],
        ("POST", "/public/recipe/user/email/verify/token"): ["userId", "email"],
        ("POST", "/public/recipe/user/email/verify"): ["method", "token"],
        ("POST", "/recipe/user/email/verify/remove"): ["userId", "email"],
        ("POST", "/public/recipe/user/email/verify/token/remove"): ["userId", "email"],
        ("POST", "/public/recipe/signinup/code"): ["email", "deviceId", "userInputCode"],
        ("POST", "/public/recipe/signinup/code/consume"): ["preAuthSessionId", "linkCode", "deviceId", "userInputCode"],
        ("POST", "/public/recipe/signinup/code/check"): ["preAuthSessionId", "linkCode", "deviceId", "userInputCode"],
        ("PUT", "/recipe/user/metadata"): ["userId", "metadataUpdate"],
        ("POST", "/recipe/user/metadata/remove"): ["userId"],
        ("POST", "/recipe/totp/device"): ["userId", "deviceName", "skew", "period"],
        ("PUT", "/recipe/totp/device"): ["userId", "existingDeviceName", "newDeviceName"],
        ("POST", "/recipe/totp/device/remove"): ["userId", "deviceName"],
        ("POST", "/public/recipe/totp/device/verify"): ["userId", "deviceName", "totp"],
        ("POST", "/public/recipe/totp/verify"): ["userId", "totp"],
        ("PUT", "/recipe/session/data"): ["sessionHandle", "userDataInDatabase"],
        ("PUT", "/recipe/jwt/data"): ["sessionHandle", "userDataInJWT"],
    }
    for (method, path), fields in routes.items():
        for raw in [b"not json", b"null", b"123", b'"text"', b"{}"]:
            got_status, got = keyed(server, method, path, raw)
            assert got_status < 500, f"{method} {path} {raw!r}: {got_status} {got!r}"
        for field in fields:
            for value in [5, True, [], {}, None, "x" * 100_000, ["a", 1]]:
                got_status, got = keyed(server, method, path, {field: value})
                assert got_status < 500, f"{method} {path} {field}={str(value)[:20]}: {got_status} {got!r}"
                if got_status == 200:
                    assert isinstance(got, dict) and isinstance(got.get("status"), str), f"{method} {path}: {got!r}"


def test_a_static_key_and_the_anti_csrf_token_when_the_sdk_asks(core):
    server, _ = core
    signed_up = core_call(server, "POST", "/public/recipe/signup", {"email": unique_email("st-static"), "password": PASSWORD})
    user_id = signed_up[1]["user"]["id"]
    status, created = core_call(server, "POST", "/public/recipe/session", {
        "userId": user_id, "userDataInJWT": {"role": "admin"}, "useDynamicSigningKey": False, "enableAntiCsrf": True})
    assert status == 200 and created["status"] == "OK", created
    token, anti_csrf = created["accessToken"]["token"], created["antiCsrfToken"]
    assert json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))["kid"].startswith("s-")

    def verify(sent):
        body = {"accessToken": token, "doAntiCsrfCheck": True, "enableAntiCsrf": True, "checkDatabase": False}
        if sent is not None:
            body["antiCsrfToken"] = sent
        return core_call(server, "POST", "/recipe/session/verify", body)[1]

    ok = verify(anti_csrf)
    assert ok["status"] == "OK" and ok["session"]["userDataInJWT"] == {"role": "admin"}, ok
    assert verify("not-the-token")["status"] == "TRY_REFRESH_TOKEN"
    assert verify(None)["status"] == "TRY_REFRESH_TOKEN"


def claims_of(token: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))


def test_a_passwordless_code_checked_without_spending_it(core):
    server, _ = core
    email = unique_email("st-check")
    status, asked = core_call(server, "POST", "/public/recipe/signinup/code", {"email": email})
    assert status == 200 and asked["status"] == "OK", asked
    device = {"preAuthSessionId": asked["preAuthSessionId"], "deviceId": asked["deviceId"]}
    code = asked["userInputCode"]

    wrong = core_call(server, "POST", "/public/recipe/signinup/code/check", {**device, "userInputCode": other_code(code)})
    assert wrong == (200, {"status": "INCORRECT_USER_INPUT_CODE_ERROR", "failedCodeInputAttemptCount": 1,
                           "maximumCodeInputAttempts": 5}), wrong
    right = core_call(server, "POST", "/public/recipe/signinup/code/check", {**device, "userInputCode": code})
    assert right == (200, {"status": "OK", "consumedDevice": {
        "preAuthSessionId": device["preAuthSessionId"], "email": email, "failedCodeInputAttemptCount": 1}}), right
    link = core_call(server, "POST", "/public/recipe/signinup/code/check",
                     {"preAuthSessionId": device["preAuthSessionId"], "linkCode": asked["linkCode"]})
    assert link[1]["status"] == "OK", link
    forged = core_call(server, "POST", "/public/recipe/signinup/code/check",
                       {"preAuthSessionId": device["preAuthSessionId"], "linkCode": "forged"})
    assert forged[1]["status"] == "RESTART_FLOW_ERROR", forged
    # Checked, not spent: the code still signs in, once.
    consumed = core_call(server, "POST", "/public/recipe/signinup/code/consume", {**device, "userInputCode": code})
    assert consumed[1]["status"] == "OK" and consumed[1]["createdNewUser"] is True, consumed
    again = core_call(server, "POST", "/public/recipe/signinup/code/check", {**device, "userInputCode": code})
    assert again[1]["status"] == "RESTART_FLOW_ERROR", again


def test_session_information_handles_and_the_apps_session_data(core):
    server, _ = core
    signed_up = core_call(server, "POST", "/public/recipe/signup", {"email": unique_email("st-info"), "password": PASSWORD})
    user_id = signed_up[1]["user"]["id"]
    status, created = core_call(server, "POST", "/public/recipe/session", {
        "userId": user_id, "userDataInJWT": {"role": "reader"}, "userDataInDatabase": {"cart": 2},
        "useDynamicSigningKey": True, "enableAntiCsrf": False})
    assert status == 200 and created["status"] == "OK", created
    handle = created["session"]["handle"]

    info = core_call(server, "GET", "/recipe/session?" + urllib.parse.urlencode({"sessionHandle": handle}))[1]
    assert info["status"] == "OK" and info["userId"] == user_id and info["recipeUserId"] == user_id, info
    assert info["userDataInJWT"] == {"role": "reader"} and info["userDataInDatabase"] == {"cart": 2}, info
    assert info["tenantId"] == "public" and info["expiry"] > info["timeCreated"] > 0, info
    handles = core_call(server, "GET", "/public/recipe/session/user?" + urllib.parse.urlencode({"userId": user_id}))[1]
    assert handles == {"status": "OK", "sessionHandles": [handle]}, handles

    assert core_call(server, "PUT", "/recipe/session/data",
                     {"sessionHandle": handle, "userDataInDatabase": {"cart": 3}}) == (200, {"status": "OK"})
    assert core_call(server, "PUT", "/recipe/jwt/data",
                     {"sessionHandle": handle, "userDataInJWT": {"role": "editor"}}) == (200, {"status": "OK"})
    info = core_call(server, "GET", "/recipe/session?" + urllib.parse.urlencode({"sessionHandle": handle}))[1]
    assert info["userDataInDatabase"] == {"cart": 3} and info["userDataInJWT"] == {"role": "editor"}, info
    # The new JWT payload is in the access token the next refresh mints.
    refreshed = core_call(server, "POST", "/recipe/session/refresh",
                          {"refreshToken": created["refreshToken"]["token"], "enableAntiCsrf": False})[1]
    assert refreshed["status"] == "OK" and claims_of(refreshed["accessToken"]["token"])["role"] == "editor", refreshed

    core_call(server, "POST", "/recipe/session/remove", {"sessionHandles": [handle]})
    for method, path, body in [
        ("GET", "/recipe/session?" + urllib.parse.urlencode({"sessionHandle": handle}), None),
        ("PUT", "/recipe/session/data", {"sessionHandle": handle, "userDataInDatabase": {}}),
        ("PUT", "/recipe/jwt/data", {"sessionHandle": handle, "userDataInJWT": {}}),
    ]:
        assert core_call(server, method, path, body)[1]["status"] == "UNAUTHORISED", (method, path)
    gone = core_call(server, "GET", "/recipe/session/user?" + urllib.parse.urlencode({"userId": user_id}))[1]
    assert gone == {"status": "OK", "sessionHandles": []}, gone
