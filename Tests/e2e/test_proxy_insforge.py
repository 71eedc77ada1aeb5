"""Proxy mode over InsForge's API: `gatehouse serve --backend insforge` in front of a second Gatehouse
whose InsForge-compatible `/api/auth` stands in for a real InsForge (none runs here). The front
Gatehouse's pages reach the accounts only through the client core's `InsForgeBackend`: sign-up,
verification with the code the back Gatehouse mailed, the account page, setProfile, sign-out and
sign-in; its console lists the accounts with the admin key.
"""

from __future__ import annotations

import json
import urllib.parse
import urllib.request

from conftest import PASSWORD, Browserless, latest_code, unique_email


def api(base: str, method: str, path: str, token: str | None = None, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"{}")


def test_pages_in_front_of_an_insforge_api(start_server):
    back = start_server(verification="code")
    admin_key = back.superuser_token()
    front = start_server(verification="code", extra_args=[
        "--backend", "insforge", "--backend-url", back.url, f"--backend-admin={admin_key}",
    ])
    browser = Browserless(front.url)
    address = unique_email("insforge")

    status, headers, _ = browser.form_post("/auth/sign-up", "/auth/sign-up",
                                           {"email": address, "password": PASSWORD, "name": "Ada Lovelace"})
    assert status == 303 and headers["Location"].startswith("/auth/verify?email="), f"sign-up answered {status}"
    code = latest_code(back.url, address)  # the back Gatehouse mailed it
    status, headers, _ = browser.form_post(headers["Location"], "/auth/verify", {"email": address, "code": code})
    assert status == 303 and headers["Location"].startswith("/account"), f"verify answered {status}"
    status, _, page = browser.get("/account")
    assert status == 200 and address in page and "Ada Lovelace" in page

    status, _, page = browser.form_post("/account", "/account", {
        "name": "Ada King", "bio": "Wrote the first program.", "avatar_url": "",
        "custom_key_0": "team", "custom_value_0": "analytical-engine",
    })
    assert status == 303, f"setProfile answered {status}: {page[:300]}"
    # The profile lives in the back Gatehouse, reached through its InsForge API.
    users = api(back.url, "GET", "/api/auth/users?limit=10&search=" + address, admin_key)["data"]
    assert [user["email"] for user in users] == [address]
    profile = api(back.url, "GET", f"/api/auth/profiles/{users[0]['id']}")["profile"]
    assert profile["name"] == "Ada King" and profile["team"] == "analytical-engine"

    status, headers, _ = browser.form_post("/account", "/auth/sign-out", {})
    assert status == 303
    status, _, _ = browser.get("/account")
    assert status in (200, 303)
    status, headers, _ = browser.form_post("/auth/sign-in", "/auth/sign-in", {"email": address, "password": PASSWORD})
    assert status == 303 and headers["Location"] == "/account"
    stranger = Browserless(front.url)
    status, _, _ = stranger.form_post("/auth/sign-in", "/auth/sign-in", {"email": address, "password": "wrong password!"})
    assert status == 401

    # The front console lists the accounts through InsForgeBackend's admin side.
    front_token = front.superuser_token("front-admin@example.com", "front-admin passphrase 7")
    listed = api(front.url, "GET", "/_/api/users?q=" + urllib.parse.quote(address), front_token)
    assert any(user["email"] == address for user in listed["items"]), listed


def test_code_sign_in_page_in_front_of_an_insforge_api(start_server):
    """The front's "email me a code" sign-in reaches the back's InsForge OTP routes: send-otp, then
    `POST /api/auth/sessions` with method otp — the back mails the code, the front signs in with it."""
    back = start_server(verification="none")
    front = start_server(verification="code", extra_args=[
        "--backend", "insforge", "--backend-url", back.url, f"--backend-admin={back.superuser_token()}",
    ])
    address = unique_email("insforge-otp")
    api(back.url, "POST", "/api/auth/users?client_type=mobile", "anon", {"email": address, "password": PASSWORD})

    browser = Browserless(front.url)
    status, headers, _ = browser.form_post("/auth/sign-in", "/auth/sign-in/code", {"email": address})
    assert status == 303 and headers["Location"].startswith("/auth/sign-in/code?"), f"code request answered {status}"
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(headers["Location"]).query)
    code = latest_code(back.url, address)  # the back Gatehouse mailed it
    wrong = "000000" if code != "000000" else "111111"
    status, _, _ = browser.form_post(headers["Location"], "/auth/sign-in/code/verify",
                                     {"otp": query["otp"][0], "email": address, "code": wrong})
    assert status == 422
    status, headers, _ = browser.form_post(f"/auth/sign-in/code?otp={urllib.parse.quote(query['otp'][0])}&email={urllib.parse.quote(address)}",
                                           "/auth/sign-in/code/verify",
                                           {"otp": query["otp"][0], "email": address, "code": code})
    assert status == 303 and headers["Location"] == "/account", f"code sign-in answered {status}"
    status, _, page = browser.get("/account")
    assert status == 200 and address in page
