"""The PocketBase-compatible API, judged by the PyPI `pocketbase` SDK: every test runs the same
assertions against the real PocketBase binary and against Gatehouse in its default mode
(`--verification code`: asked through the PocketBase API, its verification mail carries a link beside
the code, since PocketBase's SDK confirms an address with the token from the mailed link). Raw requests stand in
where the SDK has no method (impersonate). Mail comes from PocketBase's SMTP sink or Gatehouse's
dev mailbox; each side's link shape is the only thing that differs. The app's sign-up flow also runs
against Gatehouse with `--verification link`.
"""

from __future__ import annotations

import base64
import json
import re
import time
import urllib.error
import urllib.parse
from dataclasses import dataclass
from typing import Callable

import pytest
from pocketbase import PocketBase
from pocketbase.utils import ClientResponseError

from conftest import PASSWORD, SUPERUSER, pb_call, pocketbase_client, read_mailbox, unique_email

NEW_PASSWORD = "a brand new passphrase"


@dataclass
class Target:
    """One server under test: its URL, a superuser, and how to read the token a mail carried."""

    name: str
    url: str
    superuser: tuple[str, str]
    mailed_token: Callable[[str, str], str]  # (address, purpose) -> token
    mail_count: Callable[[str], int]  # address -> how many mails it has had


def gatehouse_token(base_url: str) -> Callable[[str, str], str]:
    paths = {"verification": "/auth/verify-link", "reset": "/auth/reset-password", "email": "/auth/confirm-email"}

    def read(address: str, purpose: str) -> str:
        for mail in read_mailbox(base_url, address):
            link = mail.get("link") or ""
            if urllib.parse.urlparse(link).path == paths[purpose]:
                return urllib.parse.parse_qs(urllib.parse.urlparse(link).query)["token"][0]
        raise AssertionError(f"no {purpose} mail to {address}: {read_mailbox(base_url, address)!r}")

    return read


def pocketbase_token(sink) -> Callable[[str, str], str]:
    routes = {"verification": "confirm-verification", "reset": "confirm-password-reset", "email": "confirm-email-change"}
    return lambda address, purpose: sink.wait_for(address, rf"/_/#/auth/{routes[purpose]}/([A-Za-z0-9_\-.]+)")


def start_target(request, start_server, verification: str | None) -> Target:
    """The real PocketBase (`verification` None) or Gatehouse with its default flags but `--verification`."""
    if verification is None:
        base, _, sink = request.getfixturevalue("pocketbase")
        count = lambda address: sum(address.lower() in recipients for recipients, _ in sink.messages)
        return Target("pocketbase", base, SUPERUSER, pocketbase_token(sink), count)
    server = start_server(verification=verification)
    server.superuser_token(*SUPERUSER)  # creates the superuser
    count = lambda address: len(read_mailbox(server.url, address))
    return Target("gatehouse", server.url, SUPERUSER, gatehouse_token(server.url), count)


@pytest.fixture(params=["pocketbase", "gatehouse"])
def target(request, start_server) -> Target:
    return start_target(request, start_server, None if request.param == "pocketbase" else "code")


@pytest.fixture(params=["pocketbase", "code", "link"])
def every_mode(request, start_server) -> Target:
    """The real PocketBase, and Gatehouse in both of its verification modes."""
    return start_target(request, start_server, None if request.param == "pocketbase" else request.param)


def claims(token: str) -> dict:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def error_of(call) -> ClientResponseError:
    with pytest.raises(ClientResponseError) as caught:
        call()
    return caught.value


def verified_user(target: Target, name: str = "Ada Lovelace") -> tuple[PocketBase, str]:
    """A new account made through the SDK, verified with the mailed token and signed in."""
    client = pocketbase_client(target.url)
    address = unique_email("sdk")
    record = client.collection("users").create(
        {"email": address, "password": PASSWORD, "passwordConfirm": PASSWORD, "name": name})
    assert len(record.id) == 15 and re.fullmatch(r"[a-z0-9]{15}", record.id)
    assert record.collection_name == "users" and record.collection_id == "_pb_users_auth_"
    assert record.verified is False and record.name == name
    assert not hasattr(record, "email"), "a guest's new record must not show the email"
    client.collection("users").request_verification(address)
    client.collection("users").confirm_verification(target.mailed_token(address, "verification"))
    client.collection("users").auth_with_password(address, PASSWORD)
    return client, address


def test_create_then_request_confirm_and_sign_in_back_to_back(every_mode):
    """The SDK's documented flow in its order, with no pause between calls: `create` mails nothing
    (PocketBase 0.40.6 sends nothing on create), the app's `requestVerification` mails, its token
    verifies the address, and the password signs in."""
    users = pocketbase_client(every_mode.url).collection("users")
    address = unique_email("flow")
    record = users.create({"email": address, "password": PASSWORD, "passwordConfirm": PASSWORD})
    assert record.verified is False
    assert every_mode.mail_count(address) == 0, "create mailed the address"
    users.request_verification(address)
    token = every_mode.mailed_token(address, "verification")
    assert every_mode.mail_count(address) == 1
    if every_mode.name == "gatehouse":
        # The per-address limit (one a minute) counts the app's requests only. PocketBase skips a
        # resend too, but only once its first mail has gone (two requests at once both mail).
        users.request_verification(address)
        assert every_mode.mail_count(address) == 1, "a second request within the minute mailed"
    users.confirm_verification(token)
    signed_in = users.auth_with_password(address, PASSWORD)
    assert signed_in.record.email == address and signed_in.record.verified is True


def test_sign_up_verify_sign_in_refresh_update_list_delete(target):
    client, address = verified_user(target)
    users = client.collection("users")
    record = client.auth_store.model
    assert record.email == address and record.verified is True
    token_claims = claims(client.auth_store.token)
    assert token_claims["type"] == "auth" and token_claims["collectionId"] == "_pb_users_auth_"
    assert token_claims["id"] == record.id and token_claims["refreshable"] is True
    assert 5 * 86400 - 60 < token_claims["exp"] - time.time() <= 5 * 86400 + 5, "PocketBase's 5-day token lifetime"

    refreshed = users.auth_refresh()
    assert refreshed.record.id == record.id and refreshed.token

    methods = users.list_auth_methods()
    assert methods.email_password is True and methods.username_password is False

    updated = users.update(record.id, {"name": "Ada King"})
    assert updated.name == "Ada King" and updated.email == address

    page = users.get_list(1, 10, {"filter": f'id = "{record.id}" && verified = true', "sort": "-created,email"})
    assert page.total_items == 1 and [item.id for item in page.items] == [record.id]
    # A filter on `email` sees only addresses their owners show (emailVisibility), even one's own.
    assert users.get_list(1, 10, {"filter": f'email = "{address}"'}).total_items == 0
    users.update(record.id, {"emailVisibility": True})
    assert users.get_list(1, 10, {"filter": f'email = "{address}"'}).total_items == 1
    assert users.get_one(record.id).name == "Ada King"
    assert users.get_list(1, 10, {"filter": 'email = "nobody@example.com"'}).total_items == 0

    missing = error_of(lambda: users.get_one("zzzzzzzzzzzzzzz"))
    assert missing.status == 404
    assert missing.data == {"data": {}, "message": "The requested resource wasn't found.", "status": 404}

    assert client.collection("_externalAuths").get_full_list(query_params={"filter": f"recordRef = '{record.id}'"}) == []

    assert users.delete(record.id) is True
    stranger = pocketbase_client(target.url)
    gone = error_of(lambda: stranger.collection("users").auth_with_password(address, PASSWORD))
    assert gone.status == 400


def test_superusers_list_every_account_and_impersonate(target):
    client, address = verified_user(target)
    user_id = client.auth_store.model.id
    admin = pocketbase_client(target.url)
    admin.collection("_superusers").auth_with_password(*target.superuser)
    assert claims(admin.auth_store.token)["collectionId"] == "pbc_3142635823"

    page = admin.collection("users").get_list(1, 1, {"filter": f'id = "{user_id}"', "skipTotal": True})
    assert page.total_items == -1 and page.total_pages == -1 and page.items[0].email == address
    assert admin.collection("users").get_list(1, 5, {"sort": "-created"}).total_items >= 1

    impersonated = pb_call(target.url, "POST", f"/api/collections/users/impersonate/{user_id}",
                           admin.auth_store.token, {"duration": 600})
    token = impersonated["token"]
    assert impersonated["record"]["id"] == user_id
    assert claims(token)["refreshable"] is False
    assert 540 < claims(token)["exp"] - time.time() <= 605, "the duration asked for in the body"
    again = pb_call(target.url, "POST", "/api/collections/users/auth-refresh", token)
    assert again["token"] == token, "a non-refreshable token is answered with itself"


def test_error_bodies_match(target):
    client, address = verified_user(target)
    users = pocketbase_client(target.url).collection("users")

    wrong = error_of(lambda: users.auth_with_password(address, "not the password"))
    assert wrong.status == 400
    assert wrong.data == {"data": {}, "message": "Failed to authenticate.", "status": 400}

    blank = error_of(lambda: users.auth_with_password("", ""))
    assert blank.status == 400 and set(blank.data["data"]) == {"identity", "password"}
    assert blank.data["data"]["identity"]["code"] == "validation_required"

    taken = error_of(lambda: users.create({"email": address, "password": PASSWORD, "passwordConfirm": PASSWORD}))
    assert taken.status == 400 and taken.data["message"] == "Failed to create record."
    assert taken.data["data"]["email"]["code"] == "validation_not_unique"

    mismatch = error_of(lambda: users.create(
        {"email": unique_email("mismatch"), "password": PASSWORD, "passwordConfirm": PASSWORD + "x"}))
    assert mismatch.data["data"]["passwordConfirm"]["code"] == "validation_values_mismatch"

    signed_in = client.collection("users")
    for bad in ["email ==== 'x'", "nosuchfield = 1", "(email = 'x'", "email = 'x' OR 1=1 --", "x" * 4000]:
        refused = error_of(lambda: signed_in.get_list(1, 10, {"filter": bad}))
        assert refused.status == 400 and set(refused.data) == {"data", "message", "status"}, bad

    unknown = error_of(lambda: pocketbase_client(target.url).collection("nosuchcollection").get_list())
    assert unknown.status == 404


def test_wire_details_sdks_rely_on(target):
    client, _ = verified_user(target)
    token = client.auth_store.token
    record_id = client.auth_store.model.id
    # Raw and Bearer tokens both work; an empty Authorization header is no token at all.
    assert pb_call(target.url, "GET", f"/api/collections/users/records/{record_id}", token)["id"] == record_id
    assert pb_call(target.url, "GET", f"/api/collections/users/records/{record_id}", "Bearer " + token)["id"] == record_id
    guest_list = pb_call(target.url, "GET", "/api/collections/users/records")
    assert guest_list["items"] == [] and guest_list["totalItems"] == 0
    # Dates as PocketBase writes them.
    record = pb_call(target.url, "GET", f"/api/collections/users/records/{record_id}", token)
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z", record["created"])
    # Spaces as `+` (httpx) and as `%20` both read.
    query = "filter=" + urllib.parse.quote_plus(f'id = "{record_id}"')
    assert pb_call(target.url, "GET", f"/api/collections/users/records?{query}", token)["totalItems"] == 1
    query = "filter=" + urllib.parse.quote(f'id = "{record_id}"')
    assert pb_call(target.url, "GET", f"/api/collections/users/records?{query}", token)["totalItems"] == 1


def mailed_code(target: Target, sink_or_url, address: str) -> str:
    """The newest one-time sign-in code mailed to `address` (PocketBase's OTP mail or Gatehouse's)."""
    if target.name == "pocketbase":
        return sink_or_url.wait_for(address, r"one-time password is:\s*(?:<strong>)?([0-9]{6})(?![0-9])")
    for mail in read_mailbox(target.url, address):
        if mail.get("code"):
            return mail["code"]
    raise AssertionError(f"no code mailed to {address}")


def test_otp_password_reset_and_email_change(target, request):
    client, address = verified_user(target)
    users = client.collection("users")
    mail_source = target.url
    if target.name == "pocketbase":
        _, superuser_token, sink = request.getfixturevalue("pocketbase")
        mail_source = sink
        # PocketBase keeps one-time codes off until the collection turns them on (Gatehouse's
        # PocketBase backend does this at start); 6 digits like Gatehouse's.
        pb_call(target.url, "PATCH", "/api/collections/users", superuser_token,
                {"otp": {"enabled": True, "length": 6, "duration": 600}})
    assert users.list_auth_methods().otp.enabled is True

    # One-time code: a fake id for an unknown address, a real one signs in once.
    assert pb_call(target.url, "POST", "/api/collections/users/request-otp", body={"email": unique_email("nobody")})["otpId"]
    otp_id = pb_call(target.url, "POST", "/api/collections/users/request-otp", body={"email": address})["otpId"]
    code = mailed_code(target, mail_source, address)
    signed_in = pb_call(target.url, "POST", "/api/collections/users/auth-with-otp", body={"otpId": otp_id, "password": code})
    assert signed_in["record"]["email"] == address and signed_in["token"]

    # Password reset: the old token stops working.
    old_token = client.auth_store.token
    users.request_password_reset(address)
    users.request_password_reset(unique_email("nobody"))  # 204 alike
    users.confirm_password_reset(target.mailed_token(address, "reset"), NEW_PASSWORD, NEW_PASSWORD)
    with pytest.raises(urllib.error.HTTPError) as stale:
        pb_call(target.url, "POST", "/api/collections/users/auth-refresh", old_token)
    assert stale.value.code == 401, "the old token must stop working after a reset"
    fresh = pocketbase_client(target.url)
    fresh.collection("users").auth_with_password(address, NEW_PASSWORD)
    assert error_of(lambda: pocketbase_client(target.url).collection("users").auth_with_password(address, PASSWORD)).status == 400

    # Email change: confirmed from the new address with the password.
    new_address = unique_email("moved")
    fresh.collection("users").request_email_change(new_address)
    fresh.collection("users").confirm_email_change(target.mailed_token(new_address, "email"), NEW_PASSWORD)
    moved = pocketbase_client(target.url)
    assert moved.collection("users").auth_with_password(new_address, NEW_PASSWORD).record.email == new_address
    assert error_of(lambda: pocketbase_client(target.url).collection("users").auth_with_password(address, NEW_PASSWORD)).status == 400
