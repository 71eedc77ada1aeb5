"""One-call sign-in and a clock per account (README "Test controls"), through the real SDKs on one
server for the module: the tokens `POST /_/api/test/sign-in` hands out work with the PyPI
`pocketbase` SDK, `descope` 2.16.1 and supertokens-python 0.31.4 as if the person had signed in, and
its cookie opens /account in Chromium; after `POST /_/api/test/clock` moves one account past its
lifetimes, each SDK's refresh fails for it and still works for another account signed in the same way."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from descope import AuthException, DescopeClient
from pocketbase.utils import ClientResponseError

from conftest import GatehouseServer, gatehouse_binary, pocketbase_client, unique_email
from test_browser_flow import browser, screenshot  # noqa: F401 - `browser` is a fixture

PROJECT = "P2testClockSignIn000000000001"
CHECKER = Path(__file__).with_name("supertokens_session_check.py")
DAYS_101 = 101 * 24 * 3600


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("test-clock") / "gatehouse.sqlite"
    started = GatehouseServer(gatehouse_binary(), db, "code", ["--descope-project-id", PROJECT])
    try:
        yield started.start()
    finally:
        assert started.stop() == 0, started.log_tail()


@pytest.fixture(scope="module")
def token(server) -> str:
    return server.superuser_token()


def post(server, token: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(
        server.url + path, data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def signed_in_every_way(server, token: str) -> tuple[str, dict]:
    """A new verified account and what one call per way in handed out for it."""
    email = unique_email("clock")
    post(server, token, "/_/api/users", {"email": email, "verified": True})
    return email, {way: post(server, token, "/_/api/test/sign-in", {"email": email, "way": way})
                   for way in ("pages", "pocketbase", "descope", "supertokens")}


@pytest.fixture(scope="module")
def supertokens(server):
    """supertokens-python in its own process (`supertokens_session_check.py`), Gatehouse its core."""
    checker = subprocess.Popen([sys.executable, str(CHECKER), server.url, server.supertokens_api_key()],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        yield checker
    finally:
        checker.stdin.close()
        assert checker.wait(30) == 0


def supertokens_check(checker, held: dict) -> dict:
    """The SDK's check and refresh of a held SuperTokens session; a refresh rotates the held tokens."""
    session = held["supertokens"]
    checker.stdin.write(json.dumps({"access": session["accessToken"]["token"],
                                    "refresh": session["refreshToken"]["token"]}) + "\n")
    checker.stdin.flush()
    answer = json.loads(checker.stdout.readline())
    if "refresh" in answer:
        session["accessToken"]["token"], session["refreshToken"]["token"] = answer["access"], answer["refresh"]
    return answer


def pocketbase_refresh(server, held: dict):
    client = pocketbase_client(server.url)
    client.auth_store.save(held["pocketbase"]["token"], None)
    return client.collection("users").auth_refresh()


def test_sign_in_tokens_work_with_each_sdk_and_a_clock_ends_them_for_one_account(server, token, supertokens):
    ada_email, ada = signed_in_every_way(server, token)
    bob_email, bob = signed_in_every_way(server, token)
    descope = DescopeClient(project_id=PROJECT, base_url=server.url)

    # As if each had signed in: every SDK takes the tokens.
    assert pocketbase_refresh(server, ada).record.email == ada_email
    claims = descope.validate_session(ada["descope"]["sessionJwt"])
    assert claims["sub"] == ada["descope"]["user"]["userId"]
    assert descope.refresh_session(ada["descope"]["refreshJwt"])["sessionToken"]["sub"] == claims["sub"]
    ada_id, bob_id = ada["supertokens"]["session"]["userId"], bob["supertokens"]["session"]["userId"]
    checked = supertokens_check(supertokens, ada)
    assert checked.get("user") == ada_id and checked.get("refreshedUser") == ada_id, checked

    # Ada's clock past every lifetime: each SDK's refresh fails for her, and works for Bob.
    moved = post(server, token, "/_/api/test/clock", {"email": ada_email, "seconds": DAYS_101})
    assert moved["offsetSeconds"] == DAYS_101
    with pytest.raises(ClientResponseError) as refused:
        pocketbase_refresh(server, ada)
    assert refused.value.status == 401
    with pytest.raises(AuthException) as ended:
        descope.refresh_session(ada["descope"]["refreshJwt"])
    assert ended.value.status_code == 401
    assert pocketbase_refresh(server, bob).record.email == bob_email
    assert descope.refresh_session(bob["descope"]["refreshJwt"])["sessionToken"]["sub"] == bob["descope"]["user"]["userId"]
    assert supertokens_check(supertokens, ada).get("refreshError") == "UnauthorisedError"
    checked = supertokens_check(supertokens, bob)
    assert checked.get("user") == bob_id and checked.get("refreshedUser") == bob_id, checked


def test_the_cookie_opens_the_account_page_in_chromium(server, token, browser, screenshots_dir):
    email = unique_email("cookie")
    post(server, token, "/_/api/users", {"email": email, "verified": True})
    cookie = post(server, token, "/_/api/test/sign-in", {"email": email, "way": "pages"})["cookie"]
    browser.get(server.url + "/auth/sign-in")  # a page of the server's origin, so its cookie can be set
    browser.add_cookie({"name": cookie["name"], "value": cookie["value"], "path": cookie["path"]})
    browser.get(server.url + "/account")
    assert browser.current_url.endswith("/account"), browser.current_url
    assert email in browser.page_source
    screenshot(browser, screenshots_dir, "test-controls-one-call-sign-in-account")
